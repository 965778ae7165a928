-- The comment part of tickets.search_vector (migration 018) is refreshed once
-- per statement and touched ticket, no longer once per comment row. The
-- row trigger re-aggregated every comment of the ticket for each row, so a
-- statement writing n comments of one ticket (an import's batch) cost n
-- aggregations of up to n comments: quadratic in the comments of a ticket.
-- These statement triggers read the statement's rows from its transition
-- tables and aggregate each ticket they touch once, after the statement,
-- when every row is in place: the vector is the one ticket_search_vector
-- computes, as before.
DROP TRIGGER comments_search_vector ON comments;
DROP FUNCTION comments_search_vector_trg();

CREATE FUNCTION comments_search_vector_ins_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tickets t SET search_vector = ticket_search_vector(t.id, t.title, t.description)
    WHERE t.id IN (SELECT DISTINCT ticket_id FROM new_comments);
    RETURN NULL;
END $$;

CREATE FUNCTION comments_search_vector_del_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tickets t SET search_vector = ticket_search_vector(t.id, t.title, t.description)
    WHERE t.id IN (SELECT DISTINCT ticket_id FROM old_comments);
    RETURN NULL;
END $$;

-- A trigger with transition tables cannot name columns (UPDATE OF body,
-- ticket_id), so the function keeps the rows whose body or ticket changed:
-- an edit refreshes its ticket, a move both tickets, and any other update
-- (a row version, a parent) none.
CREATE FUNCTION comments_search_vector_upd_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE tickets t SET search_vector = ticket_search_vector(t.id, t.title, t.description)
    WHERE t.id IN (
        SELECT x.ticket_id
        FROM new_comments n JOIN old_comments o ON o.id = n.id,
             LATERAL (VALUES (n.ticket_id), (o.ticket_id)) AS x(ticket_id)
        WHERE n.body IS DISTINCT FROM o.body OR n.ticket_id IS DISTINCT FROM o.ticket_id);
    RETURN NULL;
END $$;

CREATE TRIGGER comments_search_vector_ins AFTER INSERT ON comments
    REFERENCING NEW TABLE AS new_comments FOR EACH STATEMENT EXECUTE FUNCTION comments_search_vector_ins_trg();
CREATE TRIGGER comments_search_vector_del AFTER DELETE ON comments
    REFERENCING OLD TABLE AS old_comments FOR EACH STATEMENT EXECUTE FUNCTION comments_search_vector_del_trg();
CREATE TRIGGER comments_search_vector_upd AFTER UPDATE ON comments
    REFERENCING OLD TABLE AS old_comments NEW TABLE AS new_comments
    FOR EACH STATEMENT EXECUTE FUNCTION comments_search_vector_upd_trg();
