package domain_test

import (
	"encoding/json"
	"testing"

	"tracker/domain"
)

func TestOpt(t *testing.T) {
	t.Parallel()
	var v struct {
		A domain.Opt[string] `json:"a"`
		B domain.Opt[string] `json:"b"`
		C domain.Opt[string] `json:"c"`
	}
	if err := json.Unmarshal([]byte(`{"a":"x","b":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if !v.A.Set || v.A.Null || v.A.Value != "x" || *v.A.Ptr() != "x" {
		t.Errorf("a %+v", v.A)
	}
	if !v.B.Set || !v.B.Null || v.B.Ptr() != nil {
		t.Errorf("b %+v", v.B)
	}
	if v.C.Set || v.C.Ptr() != nil {
		t.Errorf("c %+v", v.C)
	}
	if err := json.Unmarshal([]byte(`{"a":5}`), &v); err == nil {
		t.Error("wrong type accepted")
	}
}
