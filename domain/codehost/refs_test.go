package codehost

import (
	"reflect"
	"testing"
)

func TestParseRefs(t *testing.T) {
	cases := []struct {
		texts []string
		want  []string
	}{
		{[]string{"PROJ-12: fix login", "feature/PROJ-12-login"}, []string{"PROJ-12"}},
		{[]string{"Fix abc-3 and ABC-4", "proj-12"}, []string{"ABC-3", "ABC-4", "PROJ-12"}},
		{[]string{"no refs here", "main"}, []string{}},
		{[]string{"year 2024-10 and -5", ""}, []string{}},
		{[]string{"Ops_2-7 (x)", "bugfix/ops_2-7"}, []string{"OPS_2-7"}},
		{[]string{"PROJ-0 PROJ-99999999999999999999", ""}, []string{}},
	}
	for _, c := range cases {
		got := []string{}
		for _, r := range ParseRefs(c.texts...) {
			got = append(got, r.String())
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseRefs(%q) = %v, want %v", c.texts, got, c.want)
		}
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"a":1}`)
	sig := Sign("s3cret", body)
	if !Verify("s3cret", body, sig) {
		t.Fatal("own signature refused")
	}
	for _, bad := range []string{"", "sha256=", sig[:len(sig)-1] + "0", "sha1=" + sig[7:], Sign("other", body)} {
		if bad == sig {
			continue
		}
		if Verify("s3cret", body, bad) {
			t.Errorf("accepted %q", bad)
		}
	}
	if Verify("", body, Sign("", body)) {
		t.Fatal("an empty secret must never verify")
	}
	if Verify("s3cret", []byte(`{"a":2}`), sig) {
		t.Fatal("changed body accepted")
	}
}
