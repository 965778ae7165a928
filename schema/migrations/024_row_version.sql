-- Row versions for ETag / If-Match: every change of a row's own columns
-- bumps row_version (a trigger, so no writer can forget it). The ticket's
-- search_vector, which comment triggers rewrite, does not count: a comment
-- does not change the ticket's version, nor a ticket created in a project
-- (its ticket_counter) the project's.
CREATE FUNCTION bump_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF (to_jsonb(NEW) - 'search_vector' - 'ticket_counter' - 'row_version') IS DISTINCT FROM
       (to_jsonb(OLD) - 'search_vector' - 'ticket_counter' - 'row_version') THEN
        NEW.row_version := OLD.row_version + 1;
    ELSE
        NEW.row_version := OLD.row_version;
    END IF;
    RETURN NEW;
END $$;

ALTER TABLE tickets ADD COLUMN row_version bigint NOT NULL DEFAULT 1;
ALTER TABLE projects ADD COLUMN row_version bigint NOT NULL DEFAULT 1;
ALTER TABLE sprints ADD COLUMN row_version bigint NOT NULL DEFAULT 1;
ALTER TABLE workflows ADD COLUMN row_version bigint NOT NULL DEFAULT 1;
ALTER TABLE comments ADD COLUMN row_version bigint NOT NULL DEFAULT 1;
ALTER TABLE time_entries ADD COLUMN row_version bigint NOT NULL DEFAULT 1;
ALTER TABLE labels ADD COLUMN row_version bigint NOT NULL DEFAULT 1;

CREATE TRIGGER tickets_row_version BEFORE UPDATE ON tickets FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER projects_row_version BEFORE UPDATE ON projects FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER sprints_row_version BEFORE UPDATE ON sprints FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER workflows_row_version BEFORE UPDATE ON workflows FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER comments_row_version BEFORE UPDATE ON comments FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER time_entries_row_version BEFORE UPDATE ON time_entries FOR EACH ROW EXECUTE FUNCTION bump_row_version();
CREATE TRIGGER labels_row_version BEFORE UPDATE ON labels FOR EACH ROW EXECUTE FUNCTION bump_row_version();
