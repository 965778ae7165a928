package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/go-playground/validator/v10"
	"github.com/gofiber/fiber/v2"

	"tracker/domain"
)

var validate = newValidator()

func newValidator() *validator.Validate {
	v := validator.New(validator.WithRequiredStructEnabled())
	v.RegisterTagNameFunc(func(f reflect.StructField) string {
		name := strings.SplitN(f.Tag.Get("json"), ",", 2)[0]
		if name == "-" {
			return ""
		}
		return name
	})
	// maxbytes=N bounds a string's length in bytes (max counts characters):
	// passwords, whose hashing cost grows with their size.
	_ = v.RegisterValidation("maxbytes", func(fl validator.FieldLevel) bool {
		n, err := strconv.Atoi(fl.Param())
		return err == nil && fl.Field().Kind() == reflect.String && len(fl.Field().String()) <= n
	})
	return v
}

// Bind reads the JSON body into dst and validates its struct tags. A body
// that is not JSON is a 400; wrong types and failed rules are a 422 listing
// each field. An empty body reads as {}. Invalid UTF-8 and NUL characters
// (which PostgreSQL cannot store) are a 422, and so is a number no double
// holds (1e400), even in a field dst does not have, an object that names a
// member twice, and a member named as a field of dst only ignoring case
// (domain.JSONNames: names match exactly).
func Bind(c *fiber.Ctx, dst any) error {
	body := bytes.TrimSpace(c.Body())
	if len(body) == 0 {
		body = []byte("{}")
	}
	if !json.Valid(body) {
		return domain.BadRequest("malformed JSON body")
	}
	if err := domain.JSONText(body); err != nil {
		return err
	}
	if err := domain.JSONNames(body, reflect.TypeOf(dst)); err != nil {
		return err
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := bodyPath(reflect.TypeOf(dst).Elem(), te.Field)
			if field == "" {
				return domain.Invalid("body: must be a JSON object")
			}
			return domain.Invalid(fmt.Sprintf("%s: must be %s", field, article(te.Type.Kind().String())))
		}
		var de *domain.Error
		if errors.As(err, &de) {
			return de
		}
		// A value its type refuses (a malformed UUID, timestamp, date or
		// decimal): encoding/json does not say which member, so name the
		// first one that fails alone.
		return domain.Invalid(refusedMember(body, reflect.TypeOf(dst).Elem(), err) + ": " + err.Error())
	}
	if err := checkLengths(dst); err != nil {
		return err
	}
	return Validate(dst)
}

// refusedMember is the key of the first member of the object body (in
// key order) that dst's type refuses on its own, "body" when none does.
func refusedMember(body []byte, t reflect.Type, err error) string {
	var members map[string]json.RawMessage
	if json.Unmarshal(body, &members) != nil || t.Kind() != reflect.Struct {
		return "body"
	}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		one, _ := json.Marshal(map[string]json.RawMessage{k: members[k]})
		if e := json.Unmarshal(one, reflect.New(t).Interface()); e != nil && e.Error() == err.Error() {
			return k
		}
	}
	return "body"
}

// bodyPath is a decoding error's field path as the body spells it:
// encoding/json names the embedded structs in it (Content.title).
func bodyPath(t reflect.Type, field string) string {
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				field = strings.TrimPrefix(field, f.Name+".")
			}
		}
	}
	return field
}

// Validate checks a struct's validate tags.
func Validate(v any) error {
	err := validate.Struct(v)
	if err == nil {
		return nil
	}
	var verrs validator.ValidationErrors
	if !errors.As(err, &verrs) {
		return domain.Invalid(err.Error())
	}
	var p domain.Problems
	for _, fe := range verrs {
		ns := fe.Namespace()
		if i := strings.Index(ns, "."); i >= 0 {
			ns = ns[i+1:]
		}
		p.Add(ns, describe(fe))
	}
	return p.Err()
}

func describe(fe validator.FieldError) string {
	isString := fe.Kind() == reflect.String
	switch fe.Tag() {
	case "required":
		return "required"
	case "email":
		return "must be a valid email address"
	case "uuid", "uuid4", "uuid7":
		return "must be a UUID"
	case "url", "http_url":
		return "must be a valid URL"
	case "oneof":
		return "must be one of " + strings.ReplaceAll(fe.Param(), " ", ", ")
	case "min":
		if isString {
			return "must be at least " + fe.Param() + " characters"
		}
		if fe.Kind() == reflect.Slice {
			return "must have at least " + fe.Param() + " items"
		}
		return "must be at least " + fe.Param()
	case "max":
		if isString {
			return "must be at most " + fe.Param() + " characters"
		}
		if fe.Kind() == reflect.Slice {
			return "must have at most " + fe.Param() + " items"
		}
		return "must be at most " + fe.Param()
	case "gte":
		return "must be at least " + fe.Param()
	case "lte":
		return "must be at most " + fe.Param()
	case "gt":
		return "must be greater than " + fe.Param()
	case "maxbytes":
		return "must be at most " + fe.Param() + " bytes"
	case "datetime":
		return "must be a date in the form " + fe.Param()
	}
	return "is invalid (" + fe.Tag() + ")"
}

func article(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int32", "int64", "uint", "uint64":
		return "an integer"
	case "float64":
		return "a number"
	case "bool":
		return "a boolean"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "array":
		return "a UUID string"
	}
	return "a " + kind
}
