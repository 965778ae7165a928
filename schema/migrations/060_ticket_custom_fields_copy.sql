-- Each ticket keeps a rendered copy of its custom values: custom_fields is
-- the API's custom_fields object, byte for byte as the API writes it (keys
-- in order, select options by their current names, strings escaped as
-- encoding/json escapes them), so every read of a ticket hands it through
-- without reading ticket_custom_values. ticket_custom_values stays the
-- typed, indexed source that search and sort read. Every statement that
-- writes values writes the copy too (a create's insert and a PATCH's
-- UPDATE with the copy rendered by the service; the others with
-- ticket_custom_fields_json, customfielddb.RewriteCopies); a trigger on
-- custom_fields rewrites the copies an option's rename changes, and a
-- field's delete rewrites its holders' (inline, or batch by batch in the
-- durable purge). Triggers on ticket_custom_values were measured and left out:
-- they cost a create or PATCH with values half as much again. The type is json, not
-- jsonb: json keeps the bytes as written (jsonb would reorder the keys and
-- add spaces), and the copy is only ever read whole.

-- custom_json_string quotes s as encoding/json does: to_json's escapes plus
-- <, >, & and U+2028/U+2029 as \uXXXX.
CREATE FUNCTION custom_json_string(s text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT replace(replace(replace(replace(replace(to_json(s)::text,
        '<', '\u003c'), '>', '\u003e'), '&', '\u0026'), U&'\2028', '\u2028'), U&'\2029', '\u2029')
$$;

-- custom_value_json is one value as the API writes it (customfield.Field's
-- Render): NULL when the value renders as nothing.
CREATE FUNCTION custom_value_json(typ text, options jsonb, t text, n numeric, d date, b boolean, u uuid, o uuid[])
RETURNS text LANGUAGE sql STABLE AS $$
    SELECT CASE
        WHEN typ IN ('text', 'url') THEN custom_json_string(t)
        WHEN typ = 'number' THEN n::text
        WHEN typ = 'date' THEN '"' || d::text || '"'
        WHEN typ = 'checkbox' THEN b::text
        WHEN typ = 'user' THEN '"' || u::text || '"'
        WHEN typ = 'multi_select' THEN (
            SELECT '[' || COALESCE(string_agg(custom_json_string(e ->> 'name'), ',' ORDER BY i.ord, j.ord), '') || ']'
            FROM unnest(o) WITH ORDINALITY i (id, ord)
            JOIN jsonb_array_elements(options) WITH ORDINALITY j (e, ord) ON (j.e ->> 'id')::uuid = i.id)
        WHEN typ = 'select' THEN (
            SELECT CASE WHEN count(*) = 1 THEN min(custom_json_string(e ->> 'name')) END
            FROM unnest(o) i (id)
            JOIN jsonb_array_elements(options) j (e) ON (j.e ->> 'id')::uuid = i.id)
    END
$$;

-- ticket_custom_fields_json renders ticket t's values with their live
-- fields as the API's custom_fields object ({} when none).
CREATE FUNCTION ticket_custom_fields_json(t uuid) RETURNS json LANGUAGE sql STABLE AS $$
    SELECT COALESCE('{' || string_agg(custom_json_string(x.key) || ':' || x.val, ',' ORDER BY x.key COLLATE "C") || '}', '{}')::json
    FROM (SELECT f.key, custom_value_json(f.type, f.options, v.text_value, v.num_value, v.date_value, v.bool_value,
                 v.user_value, v.option_ids) AS val
          FROM ticket_custom_values v JOIN custom_fields f ON f.id = v.field_id AND f.deleted_at IS NULL
          WHERE v.ticket_id = t) x
    WHERE x.val IS NOT NULL
$$;

ALTER TABLE tickets ADD COLUMN custom_fields json NOT NULL DEFAULT '{}';

UPDATE tickets SET custom_fields = ticket_custom_fields_json(id)
WHERE id IN (SELECT ticket_id FROM ticket_custom_values);

-- A field whose options are renamed rewrites the copies of the tickets
-- holding a renamed option (by the options' index); one whose key changes
-- rewrites those of every ticket holding a value of it. A delete does not:
-- the inline delete rewrites its few holders itself, and the durable purge
-- rewrites each batch's tickets as it removes their values, so deleting a
-- field held by many tickets never rewrites them all in one request.
CREATE FUNCTION custom_field_copy_sync() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    renamed uuid[];
BEGIN
    IF NEW.deleted_at IS NOT NULL THEN
        RETURN NULL;
    END IF;
    IF OLD.key IS DISTINCT FROM NEW.key THEN
        UPDATE tickets t SET custom_fields = ticket_custom_fields_json(t.id)
        WHERE t.id IN (SELECT ticket_id FROM ticket_custom_values WHERE field_id = NEW.id);
        RETURN NULL;
    END IF;
    SELECT array_agg((n.e ->> 'id')::uuid) INTO renamed
    FROM jsonb_array_elements(NEW.options) n (e) JOIN jsonb_array_elements(OLD.options) o (e) ON o.e ->> 'id' = n.e ->> 'id'
    WHERE o.e ->> 'name' IS DISTINCT FROM n.e ->> 'name';
    IF renamed IS NOT NULL THEN
        UPDATE tickets t SET custom_fields = ticket_custom_fields_json(t.id)
        WHERE t.id IN (SELECT ticket_id FROM ticket_custom_values
                       WHERE field_id = NEW.id AND option_ids && renamed AND option_ids IS NOT NULL);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER custom_fields_copy_sync AFTER UPDATE OF key, options ON custom_fields
    FOR EACH ROW EXECUTE FUNCTION custom_field_copy_sync();
