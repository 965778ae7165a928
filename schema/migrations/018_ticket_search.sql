-- Ticket search (issue 16): a full-text vector over title (weight A),
-- description (B) and comments (C) kept by the database, trigram matching of
-- titles, and the indexes the query language's filters and sorts use.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- A constant default adds the column without rewriting the table; the
-- backfill below fills it.
ALTER TABLE tickets ADD COLUMN search_vector tsvector NOT NULL DEFAULT ''::tsvector;

CREATE FUNCTION ticket_search_vector(p_id uuid, p_title text, p_description text) RETURNS tsvector
LANGUAGE sql STABLE AS $$
    SELECT setweight(to_tsvector('english', coalesce(p_title, '')), 'A')
        || setweight(to_tsvector('english', coalesce(p_description, '')), 'B')
        || setweight(to_tsvector('english', coalesce(
               (SELECT string_agg(c.body, ' ' ORDER BY c.id) FROM comments c WHERE c.ticket_id = p_id), '')), 'C')
$$;

CREATE FUNCTION tickets_search_vector_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.search_vector := ticket_search_vector(NEW.id, NEW.title, NEW.description);
    RETURN NEW;
END $$;

CREATE TRIGGER tickets_search_vector BEFORE INSERT OR UPDATE OF title, description ON tickets
    FOR EACH ROW EXECUTE FUNCTION tickets_search_vector_trg();

-- A comment written, edited or deleted refreshes its ticket's vector.
CREATE FUNCTION comments_search_vector_trg() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    tid uuid;
BEGIN
    IF TG_OP = 'DELETE' THEN
        tid := OLD.ticket_id;
    ELSE
        tid := NEW.ticket_id;
    END IF;
    UPDATE tickets t SET search_vector = ticket_search_vector(t.id, t.title, t.description) WHERE t.id = tid;
    IF TG_OP = 'UPDATE' AND OLD.ticket_id <> NEW.ticket_id THEN
        UPDATE tickets t SET search_vector = ticket_search_vector(t.id, t.title, t.description) WHERE t.id = OLD.ticket_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER comments_search_vector AFTER INSERT OR DELETE OR UPDATE OF body, ticket_id ON comments
    FOR EACH ROW EXECUTE FUNCTION comments_search_vector_trg();

UPDATE tickets t SET search_vector = ticket_search_vector(t.id, t.title, t.description);

CREATE INDEX tickets_search_idx ON tickets USING gin (search_vector) WHERE deleted_at IS NULL;
CREATE INDEX tickets_title_trgm_idx ON tickets USING gin (title gin_trgm_ops) WHERE deleted_at IS NULL;

-- Filters and sorts within a project: equality first, then the sort key and
-- id so a page is read in index order. The priority rank is the exact
-- expression store/searchdb.PriorityRank writes.
CREATE INDEX tickets_project_status_idx ON tickets (project_id, lower(status), id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_project_priority_idx ON tickets (project_id,
    (CASE priority WHEN 'None' THEN 0 WHEN 'Low' THEN 1 WHEN 'Medium' THEN 2 WHEN 'High' THEN 3 ELSE 4 END), id)
    WHERE deleted_at IS NULL;
CREATE INDEX tickets_project_created_idx ON tickets (project_id, created_at, id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_project_updated_idx ON tickets (project_id, updated_at, id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_project_unassigned_idx ON tickets (project_id, id) WHERE deleted_at IS NULL AND assignee_id IS NULL;
CREATE INDEX tickets_reporter_idx ON tickets (reporter_id);
-- Org-wide lists.
CREATE INDEX tickets_org_idx ON tickets (org_id, id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_org_status_idx ON tickets (org_id, lower(status), id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_org_updated_idx ON tickets (org_id, updated_at, id) WHERE deleted_at IS NULL;
