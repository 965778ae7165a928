package notification

import (
	"context"
	"slices"

	"tracker/domain"
	"tracker/store/notificationdb"
	"tracker/store/orgdb"
)

// EmailSettings are how a person is emailed.
type EmailSettings struct {
	Enabled bool `json:"enabled"`
	// DigestMinutes is the digest window: 0 sends each notification at
	// once, at most MaxDigestMinutes.
	DigestMinutes int `json:"digest_minutes"`
	// DisabledReason says why the service turned email off (the mail
	// server refused the address for good, or the unsubscribe link of an
	// email was used); absent while email is on or the person turned it off.
	DisabledReason *string `json:"disabled_reason,omitempty"`
}

// ChatSettings are whether a person gets direct messages in chat.
type ChatSettings struct {
	Enabled bool `json:"enabled"`
}

// Settings are a person's notification settings (the API's resource).
type Settings struct {
	Email EmailSettings   `json:"email"`
	Chat  ChatSettings    `json:"chat"`
	Types map[string]bool `json:"types"`
}

// MaxDigestMinutes is the longest digest window, a day.
const MaxDigestMinutes = 1440

// Delivers reports whether a notification of typ reaches the person at
// all; a type turned off is delivered nowhere, the inbox included.
func (s Settings) Delivers(typ string) bool { return s.Types[typ] }

func fromStored(r notificationdb.Settings) Settings {
	out := Settings{Email: EmailSettings{Enabled: r.EmailEnabled, DigestMinutes: r.DigestMinutes, DisabledReason: r.EmailDisabledReason},
		Chat: ChatSettings{Enabled: r.ChatLinked}, Types: map[string]bool{}}
	if r.ChatEnabled != nil {
		out.Chat.Enabled = *r.ChatEnabled
	}
	for _, t := range Types {
		out.Types[t] = !slices.Contains(r.TypesOff, t)
	}
	return out
}

// Settings reads the caller's settings (the defaults until they change
// them: email on with a 10-minute digest, chat on when they have linked a
// chat identity, every type on).
func (s *Service) Settings(ctx context.Context, p domain.Principal) (Settings, error) {
	r, err := notificationdb.GetSettings(ctx, s.db.Q(), p.UserID)
	if err != nil {
		return Settings{}, err
	}
	return fromStored(r), nil
}

// PutSettings replaces the caller's settings; a type the body leaves out is
// on.
func (s *Service) PutSettings(ctx context.Context, p domain.Principal, in Settings) (Settings, error) {
	if err := MayChangeSettings(p); err != nil {
		return Settings{}, err
	}
	if err := s.boundReachesEveryOrg(ctx, p); err != nil {
		return Settings{}, err
	}
	var probs domain.Problems
	if in.Email.DigestMinutes < 0 || in.Email.DigestMinutes > MaxDigestMinutes {
		probs.Add("email.digest_minutes", "must be between 0 and 1440")
	}
	var off []string
	for t, on := range in.Types {
		if !slices.Contains(Types, t) {
			probs.Add("types."+t, "is not a notification type")
			continue
		}
		if !on {
			off = append(off, t)
		}
	}
	if err := probs.Err(); err != nil {
		return Settings{}, err
	}
	slices.Sort(off)
	chat := in.Chat.Enabled
	err := notificationdb.PutSettings(ctx, s.db.Q(), p.UserID, notificationdb.Settings{EmailEnabled: in.Email.Enabled,
		DigestMinutes: in.Email.DigestMinutes, ChatEnabled: &chat, TypesOff: off}, s.now())
	if err != nil {
		return Settings{}, err
	}
	return s.Settings(ctx, p)
}

// MayChangeSettings refuses a caller that may not change its user's
// settings: they are the person's, across orgs, so a key restricted to
// projects or below the admin scope does not change them.
func MayChangeSettings(p domain.Principal) error {
	if !p.ManagesKeys() {
		return domain.Forbidden("this API key cannot change its user's notification settings (a session or an unrestricted admin key can)")
	}
	return nil
}

// boundReachesEveryOrg refuses a caller bound to one org (an API key, a
// single sign-on session, a key such a session minted) of a person who
// belongs to other orgs too: the settings decide what every org tells them,
// and an org's identity provider or key vouches for that org only. Someone
// whose orgs are all that one (the usual single sign-on user, without a
// password) changes them from there.
func (s *Service) boundReachesEveryOrg(ctx context.Context, p domain.Principal) error {
	if !p.Bound() {
		return nil
	}
	orgs, err := orgdb.OrgsOfUser(ctx, s.db.Q(), p.UserID)
	if err != nil {
		return err
	}
	for _, o := range orgs {
		if o.ID != p.OrgID {
			return domain.Forbidden("this session or API key reaches one organization only, and these settings apply to all of yours: change them from a session signed in with your password")
		}
	}
	return nil
}
