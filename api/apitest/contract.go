package apitest

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"

	"tracker/docs"
)

// The contract check: every request Env.Do sends and every response it
// gets is held to docs/openapi.yaml by libopenapi-validator.
//   - The response's status must be declared for the operation and its body
//     must match the declared schema, whatever the status.
//   - A request the service accepted (2xx) must match the document too
//     (parameters and body): the document may not be stricter than the
//     service, nor miss what a client sends. Requests the service refused
//     are the tests' deliberate bad input and are not checked.
//   - A route the document does not know may only answer 404.
//
// It is on for every Env, with no switch to turn it off. A test that mounts
// fixture routes of its own describes them in Env.FixtureRoutes, and they
// are held to that like the service's routes to the document. One request
// opts out with the SkipContract header, whose value says why; Send
// removes it before the app sees the request.

// SkipContract is the request header that exempts one exchange from the
// check, e.g. a probe of a route that does not exist, which the middleware
// answers before routing. Its value must give the reason.
const SkipContract = "X-Apitest-Skip-Contract"

var contract struct {
	mu sync.Mutex // the validators' caches are not documented as safe for concurrent use
	// byFixture holds a validator per Env.FixtureRoutes ("" is the
	// document alone), built once.
	byFixture map[string]validator.Validator
}

func contractValidator(fixture string) (validator.Validator, error) {
	if v, ok := contract.byFixture[fixture]; ok {
		return v, nil
	}
	src := docs.YAML
	if fixture != "" {
		var err error
		if src, err = docs.Extend(docs.YAML, []byte(fixture)); err != nil {
			return nil, fmt.Errorf("Env.FixtureRoutes: %w", err)
		}
	}
	doc, err := libopenapi.NewDocument(src)
	if err != nil {
		return nil, err
	}
	// Credentials are the service's business (the route walks test
	// them); the contract is about shapes.
	v, errs := validator.NewValidator(doc, config.WithoutSecurityValidation())
	if len(errs) > 0 {
		return nil, fmt.Errorf("docs/openapi.yaml: %v", errs)
	}
	if contract.byFixture == nil {
		contract.byFixture = map[string]validator.Validator{}
	}
	contract.byFixture[fixture] = v
	return v, nil
}

// checkContract validates one exchange; it reports through e.T.Errorf.
func (e *Env) checkContract(method, target string, header http.Header, body []byte, res Resp) {
	e.T.Helper()
	if why, ok := header[http.CanonicalHeaderKey(SkipContract)]; ok {
		if len(why) == 0 || strings.TrimSpace(why[0]) == "" {
			e.T.Errorf("%s %s: %s needs a reason", method, target, SkipContract)
		}
		return
	}
	if method == http.MethodHead {
		return
	}
	newReq := func() *http.Request {
		r := httptest.NewRequest(method, target, bytes.NewReader(body))
		r.Header = header.Clone()
		return r
	}
	resp := &http.Response{StatusCode: res.Status, Header: res.Header.Clone(), Body: io.NopCloser(bytes.NewReader(res.Body))}
	contract.mu.Lock()
	v, err := contractValidator(e.FixtureRoutes)
	if err != nil {
		contract.mu.Unlock()
		e.T.Fatalf("contract: %v", err)
	}
	var problems []*verrors.ValidationError
	if res.Status >= 200 && res.Status < 300 {
		_, errs := v.ValidateHttpRequestSync(newReq())
		problems = append(problems, errs...)
	}
	req := newReq()
	resp.Request = req
	_, errs := v.ValidateHttpResponse(req, resp)
	problems = append(problems, errs...)
	contract.mu.Unlock()
	var out []string
	for _, p := range problems {
		unknownRoute := p.ValidationType == helpers.PathValidation ||
			(p.ValidationType == helpers.RequestValidation && p.ValidationSubType == helpers.ValidationMissingOperation) ||
			p.ValidationSubType == helpers.ValidationMissingOperation
		if unknownRoute && res.Status == http.StatusNotFound {
			continue // a route the service does not serve either
		}
		line := p.Message
		if p.Reason != "" && p.Reason != p.Message {
			line += ": " + p.Reason
		}
		for _, se := range p.SchemaValidationErrors {
			line += fmt.Sprintf("\n      %s: %s", se.FieldPath, se.Reason)
		}
		out = append(out, line)
	}
	if len(out) > 0 {
		e.T.Errorf("contract (docs/openapi.yaml): %s %s → %d: %s\n    body: %.400s", method, target, res.Status,
			strings.Join(out, "\n    "), res.Body)
	}
}
