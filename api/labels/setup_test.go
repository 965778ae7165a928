package labels_test

import (
	"testing"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/labels"
	"tracker/domain/label"
)

func (w world) label(t *testing.T, name string) string {
	t.Helper()
	return w.Env.Do("POST", "/api/v1/orgs/"+w.Owner.OrgID.String()+"/labels", w.Member.Token,
		map[string]any{"name": name, "color": "#a1b2c3"}).Expect(t, 201).Map(t)["id"].(string)
}

func names(t *testing.T, r apitest.Resp) []string {
	t.Helper()
	var ls []map[string]any
	r.Decode(t, &ls)
	out := []string{}
	for _, l := range ls {
		out = append(out, l["name"].(string))
	}
	return out
}

// world is apitest.NewWorld serving the labels module.
type world struct{ apitest.World }

func setup(t *testing.T) world { return world{apitest.NewWorld(t, apitest.Options{Modules: modules})} }

func modules(e *apitest.Env) []api.Module { return []api.Module{labels.New(label.New(e.DB, e.Clock))} }
