-- Typo fallback of ticket search (issue 16 at 1,000,000 tickets): a free
-- word the full text finds nowhere matched titles with a similar word by
-- `word <% title` over tickets_title_trgm_idx, which returns every title
-- sharing the word's common trigrams (`dashbaord`: ~98,000 candidates
-- rechecked for 2,557 matches, 6 s). As the PostgreSQL documentation
-- suggests (pg_trgm, "Text Search Integration"), the similar words are found
-- in a small table of the distinct title words instead, trigram-indexed, and
-- the search then runs the full text with them (store/searchdb).
--
-- A word is a token of the title as the text search parser splits it
-- (to_tsvector 'simple': lower case, not stemmed) made of letters and digits
-- only, with a letter. Words are only ever added: a word whose tickets are
-- gone or renamed stays, and only widens the words tried (the search still
-- matches visible tickets by full text, so no title of a ticket the caller
-- cannot see reaches the caller).
--
-- No unique constraint: an INSERT … ON CONFLICT waits for another
-- transaction inserting the same word, and two transactions adding each
-- other's words deadlock (an import beside ticket creation). A word is
-- added when absent (NOT EXISTS); two transactions racing on a new word may
-- both add it, which costs a duplicate row, never an error.
CREATE TABLE ticket_title_words (
    org_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    word   text NOT NULL
);
CREATE INDEX ticket_title_words_org_word_idx ON ticket_title_words (org_id, word);
CREATE INDEX ticket_title_words_trgm_idx ON ticket_title_words USING gin (word gin_trgm_ops);

CREATE FUNCTION ticket_title_words(p_title text) RETURNS SETOF text
LANGUAGE sql IMMUTABLE AS $$
    SELECT DISTINCT w FROM unnest(tsvector_to_array(to_tsvector('simple', coalesce(p_title, '')))) w
    WHERE w ~ '^[[:alnum:]]+$' AND w ~ '[[:alpha:]]'
$$;

-- New titles of a statement's inserted tickets (one pass over its rows: a
-- bulk insert or an import adds each new word once).
CREATE FUNCTION tickets_title_words_ins_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ticket_title_words (org_id, word)
    SELECT DISTINCT n.org_id, w FROM new_tickets n CROSS JOIN LATERAL ticket_title_words(n.title) w
    WHERE NOT EXISTS (SELECT 1 FROM ticket_title_words x WHERE x.org_id = n.org_id AND x.word = w);
    RETURN NULL;
END $$;

CREATE TRIGGER tickets_title_words_ins AFTER INSERT ON tickets
    REFERENCING NEW TABLE AS new_tickets FOR EACH STATEMENT EXECUTE FUNCTION tickets_title_words_ins_trg();

-- A renamed ticket (a transition table cannot go with UPDATE OF a column).
CREATE FUNCTION tickets_title_words_upd_trg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO ticket_title_words (org_id, word)
    SELECT DISTINCT NEW.org_id, w FROM ticket_title_words(NEW.title) w
    WHERE NOT EXISTS (SELECT 1 FROM ticket_title_words x WHERE x.org_id = NEW.org_id AND x.word = w);
    RETURN NULL;
END $$;

CREATE TRIGGER tickets_title_words_upd AFTER UPDATE OF title, org_id ON tickets
    FOR EACH ROW WHEN (OLD.title IS DISTINCT FROM NEW.title OR OLD.org_id IS DISTINCT FROM NEW.org_id)
    EXECUTE FUNCTION tickets_title_words_upd_trg();

INSERT INTO ticket_title_words (org_id, word)
SELECT DISTINCT t.org_id, w FROM tickets t CROSS JOIN LATERAL ticket_title_words(t.title) w;

ANALYZE ticket_title_words;
