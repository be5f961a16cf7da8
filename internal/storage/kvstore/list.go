package kvstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kapi-dev/kapi/internal/storage"
)

// maxPageSize caps how many keys one range read fetches when a filtered
// page has to read ahead.
const maxPageSize = 10000

// Messages shown when a list asks for a compacted revision (upstream text).
const (
	expiredContinueMessage = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter."
	inconsistentContinueMessage = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response " +
		"to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent " +
		"list - objects that were created, modified, or deleted between the time the first chunk was returned " +
		"and now may show up in the list."
	expiredListMessage = "The resourceVersion for the provided list is too old."
)

// listPage is what one GetList call collects.
type listPage struct {
	items   []runtime.Object
	lastKey string
	hasMore bool
	rev     int64 // revision the list reflects
	// count is the number of keys from the page's first key to the end of
	// the range, as reported by the first read.
	count int64
	// fetched keys were read, evaluated objects tested against the
	// predicate (for the list metrics).
	fetched, evaluated int
}

// GetList lists key (a prefix when opts.Recursive) with paging and filtering.
func (s *store) GetList(ctx context.Context, key string, opts storage.ListOptions, listObj runtime.Object) error {
	if err := s.checkKey(key); err != nil {
		return err
	}
	keyPrefix, end := key, ""
	if opts.Recursive {
		keyPrefix = prefixKey(key)
		end = PrefixEnd(keyPrefix)
	}
	withRev, start, err := s.listRevision(keyPrefix, opts)
	if err != nil {
		return err
	}
	if start == "" {
		start = keyPrefix
	}
	started := time.Now()
	page, err := s.readPage(ctx, start, end, withRev, opts)
	// Failed lists cost too: they are recorded as well, as upstream does.
	s.metrics.ObserveList(page.fetched, page.evaluated, len(page.items), started)
	if err != nil {
		return listError(err, opts.Predicate.Continue != "", start, keyPrefix)
	}
	if err := meta.SetList(listObj, page.items); err != nil {
		return err
	}
	if !page.hasMore {
		return s.versioner.UpdateList(listObj, uint64(page.rev), "", nil)
	}
	next, err := storage.EncodeContinue(page.lastKey+"\x00", keyPrefix, page.rev)
	if err != nil {
		return err
	}
	var remaining *int64
	// Only an unfiltered page knows how many of the keys left would match.
	if opts.Predicate.Empty() {
		n := page.count - int64(len(page.items))
		remaining = &n
	}
	return s.versioner.UpdateList(listObj, uint64(page.rev), next, remaining)
}

// readPage reads from start until the page is full or the range ends. When
// the predicate drops items it keeps reading ahead at the same revision with
// growing page sizes.
func (s *store) readPage(ctx context.Context, start, end string, withRev int64, opts storage.ListOptions) (listPage, error) {
	pred := opts.Predicate
	paging := opts.Recursive && pred.Limit > 0
	var fetch int64
	if paging {
		fetch = pred.Limit
	}
	page := listPage{rev: withRev}
	for first := true; ; first = false {
		res, err := s.kv.Range(ctx, start, end, page.rev, fetch)
		if err != nil {
			return page, err
		}
		if first {
			if err := s.checkMinimumRV(start, opts.ResourceVersion, res.Revision); err != nil {
				return page, err
			}
			if page.rev == 0 {
				page.rev = res.Revision
			}
			page.count = res.Count
		}
		page.hasMore = res.More
		page.fetched += len(res.KVs)
		for _, kv := range res.KVs {
			if paging && int64(len(page.items)) >= pred.Limit {
				page.hasMore = true
				break
			}
			page.lastKey = kv.Key
			obj, err := s.decodeNew(ctx, kv.Key, kv.Value, kv.ModRevision)
			if err != nil {
				return page, err
			}
			page.evaluated++
			if ok, err := pred.Matches(obj); err != nil {
				return page, err
			} else if ok {
				page.items = append(page.items, obj)
			}
		}
		if !page.hasMore || !paging || int64(len(page.items)) >= pred.Limit {
			return page, nil
		}
		if len(res.KVs) == 0 {
			return page, fmt.Errorf("storage: range of %s reported more keys but returned none", start)
		}
		fetch = min(fetch*2, maxPageSize)
		start = page.lastKey + "\x00"
	}
}

// listRevision works out the revision to read at (0: latest) and, for a
// continued list, the key to start from.
func (s *store) listRevision(keyPrefix string, opts storage.ListOptions) (int64, string, error) {
	if opts.Recursive && opts.Predicate.Continue != "" {
		if opts.ResourceVersion != "" && opts.ResourceVersion != "0" {
			return 0, "", storage.NewError(storage.ErrCodeInvalidContinue, keyPrefix, 0,
				"specifying resource version is not allowed when using continue")
		}
		start, rv, err := storage.DecodeContinue(opts.Predicate.Continue, keyPrefix)
		if err != nil {
			return 0, "", err
		}
		// A negative revision asks for the latest state.
		return max(rv, 0), start, nil
	}
	if opts.ResourceVersion == "" {
		return 0, "", nil
	}
	rv, err := s.versioner.ParseResourceVersion(opts.ResourceVersion)
	if err != nil {
		return 0, "", err
	}
	switch opts.ResourceVersionMatch {
	case metav1.ResourceVersionMatchNotOlderThan:
		return 0, "", nil
	case metav1.ResourceVersionMatchExact:
		return int64(rv), "", nil
	case "":
		// Legacy: a paged list at an explicit revision reads at it.
		if opts.Recursive && opts.Predicate.Limit > 0 {
			return int64(rv), "", nil
		}
		return 0, "", nil
	default:
		return 0, "", storage.NewError(storage.ErrCodeInvalidObj, keyPrefix, 0,
			fmt.Sprintf("unknown ResourceVersionMatch value: %v", opts.ResourceVersionMatch))
	}
}

// listError gives an expired-revision error the upstream explanation. A
// continued list whose revision was compacted gets a token that continues
// from the same key at the latest revision, as kube-apiserver offers.
func listError(err error, continued bool, start, keyPrefix string) error {
	if storage.CodeOf(err) != storage.ErrCodeExpired {
		return err
	}
	var inner *storage.Error
	errors.As(err, &inner)
	out := &storage.Error{Code: storage.ErrCodeExpired, Key: inner.Key, ResourceVersion: inner.ResourceVersion, Message: expiredListMessage}
	if !continued {
		return out
	}
	out.Message = expiredContinueMessage
	// -1 asks for the latest revision; 0 would read as a broken token.
	if next, encErr := storage.EncodeContinue(start, keyPrefix, -1); encErr == nil {
		out.Message = inconsistentContinueMessage
		out.Continue = next
	}
	return out
}
