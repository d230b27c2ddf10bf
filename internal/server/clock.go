package server

import (
	"time"
)

// The server's clock: which day it is for evaluations and lists, and the
// latest day a dated sample may carry.

// Today is the evaluation date: the UTC calendar day of the server clock.
func (s *Server) Today() time.Time {
	y, m, d := s.Now().UTC().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// LatestDay is the newest calendar day anywhere on Earth (UTC+14): a
// dated sample may carry it, so an editor east of UTC is never refused
// today's date in the hours before the UTC day turns. Lists, staleness and
// evaluations still use the UTC day (today).
func (s *Server) LatestDay() time.Time {
	y, m, d := s.Now().UTC().Add(14 * time.Hour).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}
