package webhooks

import "time"

// SetClock makes s sign with now's time.
func SetClock(s *Service, now func() time.Time) { s.now = now }
