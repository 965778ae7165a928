package domain

import "tracker/store"

// Page and Paged are the store's keyset pagination types, re-exported so the
// API edge need not import store.
type (
	Page         = store.Page
	Paged[T any] = store.Paged[T]
)

// Page size limits of the spec.
const (
	DefaultPageLimit = 20
	MaxPageLimit     = 100
)

// MapPage converts the items of a page.
func MapPage[A, B any](p Paged[A], f func(A) B) Paged[B] {
	out := Paged[B]{Items: make([]B, 0, len(p.Items)), Next: p.Next}
	for _, a := range p.Items {
		out.Items = append(out.Items, f(a))
	}
	return out
}
