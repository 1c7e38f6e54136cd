"""Table onboarding: profiles, keys, joins, partition/index picks, value cache (issue 4)."""
