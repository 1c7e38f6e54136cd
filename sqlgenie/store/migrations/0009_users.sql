-- Server users and their bearer tokens (issue 17). Written by sqlgenie/server/users.py.
--
-- A token is shown once, when it is made (`sqlgenie users add NAME --role ROLE --json`),
-- and only its SHA-256 is kept: tokens are 256-bit random strings, so a fast hash is
-- enough (there is nothing to brute-force), and a lookup per request stays cheap.
CREATE TABLE sqlgenie.users (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE,
    role        text NOT NULL CHECK (role IN ('asker', 'reviewer', 'admin')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    disabled_at timestamptz
);

CREATE TABLE sqlgenie.user_tokens (
    id           bigserial PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES sqlgenie.users (id) ON DELETE CASCADE,
    token_sha256 text NOT NULL UNIQUE,   -- hex SHA-256 of the token; the token itself is never stored
    prefix       text NOT NULL,          -- first characters, to tell tokens apart in listings
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);

CREATE INDEX user_tokens_user_idx ON sqlgenie.user_tokens (user_id);
