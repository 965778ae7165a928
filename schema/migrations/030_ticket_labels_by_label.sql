-- Search by label (issue 16 at 1,000,000 tickets): a label term compiles
-- to a constant label id (store/searchdb.Resolve), and the tickets of one
-- label are read from this index in ticket id order, the list's default
-- order, without touching ticket_labels' rows: a page of a common label
-- reads about as many entries as it shows, a rare or unused label its few
-- entries. (ticket_id, label_id) is the primary key, so the pair is unique
-- either way round; the label_id-only index it replaces served only the
-- lookups this one serves.
CREATE UNIQUE INDEX ticket_labels_label_ticket_idx ON ticket_labels (label_id, ticket_id);
DROP INDEX ticket_labels_label_idx;
