"""The server's routes: each parses the request, calls one library function and
returns its JSON; no logic lives here."""
