-- Statistics of the phrase pair index's expression (migration 034): the
-- planner keeps none for the expression of a partial index, so it took
-- every pair for 0.5% of the tickets ("payment page", in 5%, included), and
-- store/searchdb had no way to tell a rare pair (worth the pair index) from
-- a common one (cheaper by walking the most recently updated tickets). With
-- these, the planner estimates a pair's share from its most common pairs,
-- and the search reads them (pg_stats_ext_exprs) to use the pair index only
-- for pairs under searchdb.MaxPairShare of the tickets.
CREATE STATISTICS tickets_word_pairs_stats ON (ticket_word_pairs(search_vector)) FROM tickets;
ANALYZE tickets;
