package domain

import (
	"reflect"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// CheckBounds walks v (a decoded request body or document) and reports,
// by JSON path, every value outside the caps shared by the API edge and
// imports: strings at most MaxFreeText characters, at most MaxName for a
// field called name or …_name (and for map keys); money (…_cents) within
// ±MaxCents; dates (date, …_date as YYYY-MM-DD) and times within years
// MinYear-MaxYear. add receives each problem; returning false stops the
// walk.
func CheckBounds(v any, add func(path, problem string) bool) {
	walkBounds(reflect.ValueOf(v), "", &bounds{add0: add})
}

type bounds struct {
	add0 func(path, problem string) bool
	stop bool
}

func (b *bounds) add(path, problem string) {
	if !b.stop && !b.add0(path, problem) {
		b.stop = true
	}
}

func walkBounds(v reflect.Value, path string, p *bounds) {
	if p.stop {
		return
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walkBounds(v.Elem(), path, p)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		if strings.HasSuffix(lastName(path), "_cents") && (v.Int() > MaxCents || v.Int() < -MaxCents) {
			p.add(path, "must be between -10^15 and 10^15")
		}
	case reflect.String:
		if name := lastName(path); name == "date" || strings.HasSuffix(name, "_date") {
			if d, err := time.Parse(time.DateOnly, v.String()); err == nil && (d.Year() < MinYear || d.Year() > MaxYear) {
				p.add(path, "must be a date between years 1900 and 9999")
			}
		}
		limit := MaxFreeText
		if name := lastName(path); name == "name" || strings.HasSuffix(name, "_name") {
			limit = MaxName
		}
		if len(v.String()) > limit && utf8.RuneCountInString(v.String()) > limit {
			p.add(path, "must be at most "+strconv.Itoa(limit)+" characters")
		}
	case reflect.Struct:
		if tm, ok := v.Interface().(time.Time); ok {
			if !tm.IsZero() && (tm.Year() < MinYear || tm.Year() > MaxYear) {
				p.add(path, "must be a time between years 1900 and 9999")
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
			walkBounds(v.Field(i), sub, p)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // ids and bytes
		}
		for i := 0; i < v.Len(); i++ {
			walkBounds(v.Index(i), path+"["+strconv.Itoa(i)+"]", p)
		}
	case reflect.Map:
		iter := v.MapRange()
		for iter.Next() {
			k := iter.Key()
			key := ""
			if k.Kind() == reflect.String {
				key = k.String()
				if len(key) > MaxName {
					p.add(path, "keys must be at most "+strconv.Itoa(MaxName)+" characters")
					continue
				}
			}
			walkBounds(iter.Value(), joinPath(path, key), p)
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
