"""Feedback and background regeneration (issue 16): thumbs up/down on answers
(:mod:`.service`), a durable job queue in the store (:mod:`.queue`) drained by
``sqlgenie worker`` (:mod:`.worker`), regeneration of K candidates
(:mod:`.regenerate`), selection by execution result (:mod:`.selection`) and the
review queue (:mod:`.review`)."""
