-- A replica caches each user's standing (active, the orgs whose membership
-- requires SSO) while it listens on tracker_standing; every change of it is
-- notified here, so a deactivated user is refused at once on every replica.
-- Row triggers with WHEN clauses: only a change of what the standing holds
-- notifies (a NOTIFY serializes the committing transaction cluster-wide).
CREATE FUNCTION notify_standing() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('tracker_standing', '');
    RETURN NULL;
END;
$$;

CREATE TRIGGER users_standing_update AFTER UPDATE OF active ON users
    FOR EACH ROW WHEN (OLD.active IS DISTINCT FROM NEW.active) EXECUTE FUNCTION notify_standing();
CREATE TRIGGER users_standing_delete AFTER DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION notify_standing();
CREATE TRIGGER memberships_standing_insert AFTER INSERT ON memberships
    FOR EACH ROW WHEN (NEW.sso_only) EXECUTE FUNCTION notify_standing();
CREATE TRIGGER memberships_standing_update AFTER UPDATE OF sso_only, user_id ON memberships
    FOR EACH ROW WHEN (OLD.sso_only OR NEW.sso_only) EXECUTE FUNCTION notify_standing();
CREATE TRIGGER memberships_standing_delete AFTER DELETE ON memberships
    FOR EACH ROW WHEN (OLD.sso_only) EXECUTE FUNCTION notify_standing();
