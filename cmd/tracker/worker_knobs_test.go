package main

import (
	"strings"
	"testing"
	"time"
)

// TestDigestMinuteKnob: TRACKER_TEST_DIGEST_MINUTE shrinks a digest minute
// for the digests the worker starts; unset it is a minute (0), and a value
// that is not a positive duration stops the start naming it.
func TestDigestMinuteKnob(t *testing.T) {
	for _, tc := range []struct {
		env     string
		want    time.Duration
		wantErr bool
	}{{"", 0, false}, {"1s", time.Second, false}, {"250ms", 250 * time.Millisecond, false},
		{"0s", 0, true}, {"-1s", 0, true}, {"soon", 0, true}} {
		t.Setenv("TRACKER_TEST_DIGEST_MINUTE", tc.env)
		k, err := loadWorkerKnobs()
		if tc.wantErr {
			if err == nil || !strings.Contains(err.Error(), "TRACKER_TEST_DIGEST_MINUTE") {
				t.Errorf("%q: error %v", tc.env, err)
			}
			continue
		}
		if err != nil || k.DigestMinute != tc.want {
			t.Errorf("%q: %v %v, want %v", tc.env, k.DigestMinute, err, tc.want)
		}
	}
}
