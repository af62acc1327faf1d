package auth

import (
	"context"
	"time"

	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

func accountKey(provider, username string) string { return "acct:" + provider + ":" + username }

func ipKey(ip string) string { return "ip:" + ip }

// attempt reserves one credential attempt for every key before any hash is
// computed, so parallel guesses at the threshold cannot slip through (each
// one counts until it succeeds). Counters live in the database and are
// shared by every instance. When any key is over its limit the answer is
// 429 with Retry-After until its window ends: throttling, never lockout.
//
// release(true) clears the account-like keys and gives the address its
// attempt back; release(false) leaves the failure counted.
func (s *Service) attempt(ctx context.Context, keys ...string) (release func(success bool), err error) {
	now := s.now().Unix()
	window := int64(s.Config.FailureWindow / time.Second)
	var retry int64
	for _, key := range keys {
		failures, windowStart, err := s.Store.CountAttempt(ctx, key, now, window)
		if err != nil {
			return nil, err
		}
		limit := s.Config.MaxFailures
		if key[:3] == "ip:" {
			limit = s.Config.MaxFailuresPerIP
		}
		if failures > limit {
			if r := windowStart + window - now; r > retry {
				retry = r
			}
		}
	}
	// Counters whose window ended long ago count nothing: expire a few with
	// each attempt, so a stream of new usernames cannot grow the table.
	expire, cancel := reqctx.Detach(ctx)
	s.Store.ExpireAttempts(expire, now-2*window)
	cancel()
	if retry > 0 {
		reqctx.Logger(ctx).Warn("credential attempts throttled", "retry_after_s", retry)
		return nil, status.New(status.ResourceExhausted, "too many failed attempts; try again later").
			RetryAfter(time.Duration(retry) * time.Second).
			WithDetails(status.Info("LOGIN_THROTTLED", nil))
	}
	return func(success bool) {
		if !success {
			return
		}
		// Detached from the request: a cancelled client must not keep a
		// successful login counted against the account.
		ctx, cancel := reqctx.Detach(ctx)
		defer cancel()
		for _, key := range keys {
			if key[:3] == "ip:" {
				s.Store.ReturnAttempt(ctx, key)
			} else {
				s.Store.ForgetAttempts(ctx, key)
			}
		}
	}, nil
}
