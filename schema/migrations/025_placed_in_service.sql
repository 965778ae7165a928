-- The date a capitalized project was placed in service (issue 17 item 2):
-- its capitalized cost amortizes straight-line from the month after.
ALTER TABLE projects ADD COLUMN placed_in_service date;
