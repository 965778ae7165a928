-- Org slugs are lower-case ASCII letters, digits and '-': a slug names files
-- (the export's download is export-<slug>-<date>.<format>), so a quote, a
-- ';', a '/', a dot or a line break in one could end or add a header
-- parameter. Slugs from before the rule are rewritten once, in org id order,
-- deterministically and uniquely: lower-cased, every run of other characters
-- made one '-', trimmed of '-' at both ends, cut to 60 characters ("org"
-- when nothing is left); if another org holds that slug, the org id's 32 hex
-- digits are appended (then "-2", "-3"… in the unlikely case that is taken
-- too). Each rewrite leaves an audit row on the org (no actor). The CHECK
-- then keeps every future slug in the set, whatever path writes it.
DO $$
DECLARE
    o    record;
    base text;
    cand text;
    n    int;
BEGIN
    FOR o IN SELECT id, slug FROM organizations WHERE slug !~ '^[a-z0-9-]{1,100}$' ORDER BY id LOOP
        base := left(trim(BOTH '-' FROM regexp_replace(lower(o.slug), '[^abcdefghijklmnopqrstuvwxyz0123456789]+', '-', 'g')), 60);
        base := trim(BOTH '-' FROM base);
        IF base = '' THEN
            base := 'org';
        END IF;
        cand := base;
        n := 1;
        WHILE EXISTS (SELECT 1 FROM organizations WHERE slug = cand AND id <> o.id) LOOP
            cand := base || '-' || replace(o.id::text, '-', '') || CASE WHEN n > 1 THEN '-' || n ELSE '' END;
            n := n + 1;
        END LOOP;
        UPDATE organizations SET slug = cand, updated_at = now() WHERE id = o.id;
        INSERT INTO audit_log (id, org_id, actor_id, entity_type, entity_id, action, changes, created_at)
        VALUES (gen_random_uuid(), o.id, NULL, 'organization', o.id, 'slug_rewritten',
                jsonb_build_array(jsonb_build_object('field', 'slug', 'old', o.slug, 'new', cand)), now());
    END LOOP;
END
$$;

ALTER TABLE organizations ADD CONSTRAINT organizations_slug_check CHECK (slug ~ '^[a-z0-9-]{1,100}$');
