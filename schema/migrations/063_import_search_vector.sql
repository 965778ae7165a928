-- An import writes each ticket row once. It inserted a ticket (the insert
-- trigger computing its search vector without comments), then the ticket's
-- comments, whose statement trigger rewrote the ticket row with the vector
-- of its comments: two writes of every index of tickets per imported ticket.
-- Now the import computes the whole vector in the ticket's INSERT from the
-- comments it is about to write (ticket_text_vector, the very expression
-- ticket_search_vector reads back, fed the comment bodies joined in id order
-- as its string_agg joins them), with the transaction-local setting
-- tracker.search_vector_given on for that insert and its comments' insert:
-- the ticket trigger then keeps the given vector on INSERT, and the comment
-- insert trigger refreshes no ticket. Every other writer leaves the setting
-- unset and sees the triggers of migrations 018 and 042 unchanged.
CREATE FUNCTION ticket_text_vector(p_title text, p_description text, p_comments text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT setweight(to_tsvector('english', coalesce(p_title, '')), 'A')
        || setweight(to_tsvector('english', coalesce(p_description, '')), 'B')
        || setweight(to_tsvector('english', coalesce(p_comments, '')), 'C')
$$;

CREATE OR REPLACE FUNCTION ticket_search_vector(p_id uuid, p_title text, p_description text) RETURNS tsvector
LANGUAGE sql STABLE AS $$
    SELECT ticket_text_vector(p_title, p_description,
        (SELECT string_agg(c.body, ' ' ORDER BY c.id) FROM comments c WHERE c.ticket_id = p_id))
$$;

CREATE OR REPLACE FUNCTION tickets_search_vector_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' AND current_setting('tracker.search_vector_given', true) = 'on' THEN
        RETURN NEW;
    END IF;
    NEW.search_vector := ticket_search_vector(NEW.id, NEW.title, NEW.description);
    RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION comments_search_vector_ins_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF current_setting('tracker.search_vector_given', true) = 'on' THEN
        RETURN NULL;
    END IF;
    UPDATE tickets t SET search_vector = ticket_search_vector(t.id, t.title, t.description)
    WHERE t.id IN (SELECT DISTINCT ticket_id FROM new_comments);
    RETURN NULL;
END $$;
