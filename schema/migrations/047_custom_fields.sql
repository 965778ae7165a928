-- Custom field definitions: typed fields an org defines for its tickets,
-- enabled for every project (project_ids empty) or for the projects listed.
-- A field's key and type never change; options are kept in the row as
-- [{id, name, color, archived}] so a rename shows wherever the option's id
-- is stored.
CREATE TABLE custom_fields (
    id          uuid PRIMARY KEY,
    org_id      uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    key         text NOT NULL CHECK (key ~ '^[a-z0-9_]{1,64}$'),
    name        text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    type        text NOT NULL CHECK (type IN ('text', 'number', 'date', 'select', 'multi_select', 'user', 'checkbox', 'url')),
    options     jsonb NOT NULL DEFAULT '[]',
    project_ids uuid[] NOT NULL DEFAULT '{}',
    required    boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX custom_fields_org_key_key ON custom_fields (org_id, key);
CREATE INDEX custom_fields_org_idx ON custom_fields (org_id, id);

-- A ticket's custom values, one row per (ticket, field), typed by column so
-- each type searches and sorts by its own index; the values go with their
-- ticket (purged) and with their field (deleted).
CREATE TABLE ticket_custom_values (
    ticket_id  uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    field_id   uuid NOT NULL REFERENCES custom_fields (id) ON DELETE CASCADE,
    org_id     uuid NOT NULL,
    text_value text CHECK (char_length(text_value) <= 10000),
    num_value  numeric,
    date_value date,
    bool_value boolean,
    user_value uuid,
    option_ids uuid[],
    PRIMARY KEY (ticket_id, field_id)
);
CREATE INDEX ticket_custom_values_field_idx ON ticket_custom_values (field_id, ticket_id);
CREATE INDEX ticket_custom_values_text_idx ON ticket_custom_values (field_id, lower(text_value)) WHERE text_value IS NOT NULL;
CREATE INDEX ticket_custom_values_num_idx ON ticket_custom_values (field_id, num_value) WHERE num_value IS NOT NULL;
CREATE INDEX ticket_custom_values_date_idx ON ticket_custom_values (field_id, date_value) WHERE date_value IS NOT NULL;
CREATE INDEX ticket_custom_values_options_idx ON ticket_custom_values USING gin (option_ids) WHERE option_ids IS NOT NULL;
