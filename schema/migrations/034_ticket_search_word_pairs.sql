-- Phrase search (issue 16 at 1,000,000 tickets): the text index
-- (tickets_search_idx, GIN over search_vector) stores no positions, so a
-- phrase such as "payment timeout" ('payment' <-> 'timeout') read every
-- ticket with both words and rechecked the phrase on each (23,259 tickets
-- for 2,410 matches), or walked the most recently updated tickets to fill
-- the relevance window (~80,000 tickets): 0.7-1 s a page.
--
-- ticket_word_pairs(v) is the set of adjacent lexeme pairs of a search
-- vector: 'payment timeout' for every position p holding 'payment' and p + 1
-- holding 'timeout'. It reads the positions of the vector itself, so a pair
-- is there exactly when the phrase operator <-> of that pair matches the
-- vector (also across the title/description/comment boundaries, where ||
-- shifts the positions, and at the 16,383 position cap). A pair holds a
-- space, which no lexeme of websearch_to_tsquery has, so no word query
-- matches it. store/searchdb adds `ticket_word_pairs(t.search_vector) @@
-- <every <-> pair of the phrase>` to a phrase as a prefilter that this
-- index answers; the phrase itself stays the check.
--
-- A tsvector holds lexemes of at most 2,047 bytes and 1 MB in all: a vector
-- whose pairs would not fit (a pair over 2,046 bytes, or over 512 KB of
-- pairs, only from pathological text) is the single lexeme ' ' instead,
-- which every phrase prefilter also accepts (' ' | …): such a ticket is
-- always rechecked, never lost.
--
-- An expression index, not a column: nothing is written to the 1,000,000
-- rows (no table rewrite, no trigger, no row_version change), and it cannot
-- drift from search_vector, which the existing triggers keep (comments
-- included). The function runs when an index entry is written, i.e. on
-- every ticket insert and every update that is not HOT.
CREATE FUNCTION ticket_word_pairs(v tsvector) RETURNS tsvector
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    WITH pos AS (SELECT u.lexeme, unnest(u.positions) AS p FROM unnest(v) u),
    pairs AS (SELECT DISTINCT a.lexeme || ' ' || b.lexeme AS pair FROM pos a JOIN pos b ON b.p = a.p + 1)
    SELECT CASE WHEN max(octet_length(pair)) > 2046 OR sum(octet_length(pair)) > 524288 THEN array_to_tsvector(ARRAY[' '])
                ELSE coalesce(array_to_tsvector(array_agg(pair)), ''::tsvector) END
    FROM pairs
$$;

CREATE INDEX tickets_search_pairs_idx ON tickets USING gin (ticket_word_pairs(search_vector)) WHERE deleted_at IS NULL;

-- Statistics of the expression (its most common pairs), which the planner
-- reads to estimate a phrase's matches.
ANALYZE tickets;
