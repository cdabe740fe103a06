-- Who a directory entry or an identity provider's account is (issue 16): each person is
-- bound at their first directory or single sign-on sign-in to the entry's DN or to the
-- provider's (issuer, subject), and later sign-ins are matched by that binding, never by
-- the e-mail address alone. Operational state like signin_passwords; each binding is also
-- an auth.identity_bound event.
CREATE TABLE signin_identities (
  provider TEXT NOT NULL,                   -- 'ldap', or 'oidc:<issuer>'
  subject  TEXT NOT NULL,                   -- the DN (lower-cased), or the ID token's sub
  user_id  TEXT NOT NULL,                   -- usr-<hex>
  bound_at TEXT NOT NULL,
  PRIMARY KEY (provider, subject)
);
-- One identity per person per provider.
CREATE UNIQUE INDEX signin_identities_user ON signin_identities (provider, user_id);
