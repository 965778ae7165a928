package api

import (
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"tracker/domain"
)

// checkLengths is the edge's cap on every string a request body binds:
// at most domain.MaxFreeText characters (comment bodies, descriptions,
// goals), and at most domain.MaxName for a field called name or …_name
// (the spec's 1-255 for names; label, sprint and workflow names where it
// gives only a minimum). Money (…_cents) is bounded by ±domain.MaxCents and
// dates and times lie in years 1900-9999. Features apply tighter limits of
// their own.
func checkLengths(v any) error {
	var p domain.Problems
	walkStrings(reflect.ValueOf(v), "", &p)
	return p.Err()
}

func walkStrings(v reflect.Value, path string, p *domain.Problems) {
	if len(*p) >= 20 {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkStrings(v.Elem(), path, p)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if strings.HasSuffix(lastName(path), "_cents") && (v.Int() > domain.MaxCents || v.Int() < -domain.MaxCents) {
			p.Add(path, "must be between -10^15 and 10^15")
		}
	case reflect.String:
		if name := lastName(path); name == "date" || strings.HasSuffix(name, "_date") {
			if d, err := time.Parse(time.DateOnly, v.String()); err == nil && (d.Year() < domain.MinYear || d.Year() > domain.MaxYear) {
				p.Add(path, "must be a date between years 1900 and 9999")
			}
		}
		limit := domain.MaxFreeText
		if name := lastName(path); name == "name" || strings.HasSuffix(name, "_name") {
			limit = domain.MaxName
		}
		if len(v.String()) > limit && utf8.RuneCountInString(v.String()) > limit {
			p.Add(path, "must be at most "+strconv.Itoa(limit)+" characters")
		}
	case reflect.Struct:
		if tm, ok := v.Interface().(time.Time); ok {
			if !tm.IsZero() && (tm.Year() < domain.MinYear || tm.Year() > domain.MaxYear) {
				p.Add(path, "must be a time between years 1900 and 9999")
			}
			return
		}
		t := v.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name := strings.SplitN(f.Tag.Get("json"), ",", 2)[0]
			if name == "-" {
				continue
			}
			sub := path // an untagged field (Opt's Value) speaks for its parent
			if name != "" {
				sub = joinPath(path, name)
			}
			walkStrings(v.Field(i), sub, p)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // ids and bytes
		}
		for i := 0; i < v.Len(); i++ {
			walkStrings(v.Index(i), path+"["+strconv.Itoa(i)+"]", p)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			key := ""
			if k.Kind() == reflect.String {
				key = k.String()
				if len(key) > domain.MaxName {
					p.Add(path, "keys must be at most "+strconv.Itoa(domain.MaxName)+" characters")
					continue
				}
			}
			walkStrings(iter.Value(), joinPath(path, key), p)
		}
	}
}

func joinPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

func lastName(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		path = path[i+1:]
	}
	if i := strings.IndexByte(path, '['); i >= 0 {
		path = path[:i]
	}
	return path
}
