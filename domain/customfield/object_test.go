package customfield_test

import (
	"encoding/json"
	"testing"

	cf "tracker/domain/customfield"
)

// TestObjectJSONMatchesEncodingJSON: the hand-written encoder of a ticket's
// custom_fields writes what encoding/json writes for the same map, byte for
// byte, for every kind of value Field.Render answers and for the odd ones.
func TestObjectJSONMatchesEncodingJSON(t *testing.T) {
	for _, o := range []cf.Object{
		nil,
		{},
		{"severity": "High", "story_points": json.Number("5.25"), "flag": true, "off": false},
		{"labels_x": []string{"a", "<b>", "c&d"}, "none": []string{}, "nil": []string(nil)},
		{"text": "quote \" backslash \\ tab \t nl \n ctl \x01 html <>& \u2028 \u2029 é 日本 \xff"},
		{"owner": "01a21fd0-3a49-7a74-b80f-f565bbf39685", "shipped_on": "2026-12-01", "neg": json.Number("-0.5")},
		{"odd": 3, "b": "x"}, // not a rendered type: falls back to encoding/json
	} {
		want, err := json.Marshal(map[string]any(o))
		if len(o) == 0 {
			want = []byte("{}")
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := o.AppendJSON([]byte("prefix")); string(got) != "prefix"+string(want) {
			t.Errorf("%v:\n got %s\nwant prefix%s", o, got, want)
		}
	}
}
