-- sort:cf.<key> walks a field's values in order, ties by ticket: the number
-- and date indexes gain the ticket id as their last column (a page is then
-- read from the index in its order, with no sort of the matches), and
-- replace the two-column ones they cover.
CREATE INDEX ticket_custom_values_num_sort_idx ON ticket_custom_values (field_id, num_value, ticket_id) WHERE num_value IS NOT NULL;
CREATE INDEX ticket_custom_values_date_sort_idx ON ticket_custom_values (field_id, date_value, ticket_id) WHERE date_value IS NOT NULL;
DROP INDEX ticket_custom_values_num_idx;
DROP INDEX ticket_custom_values_date_idx;
