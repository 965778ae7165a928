package attachment

import (
	"context"
	"time"

	"tracker/store/attachmentdb"
)

// DeleteObjects removes objects of deleted attachments (the durable job of
// TopicDeleteObjects); a missing object is success, so a retry is harmless.
func (s *Service) DeleteObjects(ctx context.Context, keys []string, progress func(done int)) error {
	for i, k := range keys {
		if err := s.objects.Delete(ctx, k); err != nil {
			return err
		}
		if progress != nil {
			progress(i + 1)
		}
	}
	return nil
}

// SweepPage is one page of the cleanup of unconfirmed uploads.
type SweepPage struct {
	Next    string `json:"next"`    // the last key looked at; "" when the listing ended
	Deleted int    `json:"deleted"` // objects removed in this page
}

// SweepUnconfirmed looks at up to limit objects under the attachments
// prefix after the key after, and removes those last modified before
// cutoff that no attachment row records: uploads never confirmed (or whose
// row is already gone). Objects newer than cutoff are left alone, so an
// upload in progress is never touched.
//
// The first page also forgets the presigns made before cutoff: their URLs
// have long expired, and their uploads can no longer be confirmed.
func (s *Service) SweepUnconfirmed(ctx context.Context, after string, cutoff time.Time, limit int) (SweepPage, error) {
	if after == "" {
		if _, err := attachmentdb.PurgeUploads(ctx, s.db.Q(), cutoff); err != nil {
			return SweepPage{}, err
		}
	}
	objs, err := s.objects.List(ctx, KeyRoot, after, limit)
	if err != nil {
		return SweepPage{}, err
	}
	var page SweepPage
	if len(objs) == limit {
		page.Next = objs[len(objs)-1].Key
	}
	var old []string
	for _, o := range objs {
		if o.LastModified.Before(cutoff) {
			old = append(old, o.Key)
		}
	}
	if len(old) == 0 {
		return page, nil
	}
	recorded, err := attachmentdb.RecordedKeys(ctx, s.db.Q(), old)
	if err != nil {
		return SweepPage{}, err
	}
	for _, k := range old {
		if recorded[k] {
			continue
		}
		if err := s.objects.Delete(ctx, k); err != nil {
			return SweepPage{}, err
		}
		page.Deleted++
	}
	return page, nil
}
