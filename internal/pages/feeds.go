package pages

import (
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"gpuquote/internal/auth"
	"gpuquote/internal/feed"
	"gpuquote/internal/i18n"
	"gpuquote/internal/notify"
	"gpuquote/internal/server"
	"gpuquote/web"
)

// CreateFeedToken makes the signed-in user a feed token, replacing the
// one they held, and shows its feed addresses on the account page this
// once: only its hash is stored (201, like an API token). It asks for no
// password: the token reads nothing the session could not, and reads only
// (docs/RULES.md §24.6).
func (s *Handlers) CreateFeedToken(c echo.Context) error {
	token := auth.NewFeedToken()
	if _, err := s.Store.CreateFeedToken(c.Request().Context(), s.Actor(c), auth.HashToken(token), s.Now()); err != nil {
		return err
	}
	quotes, watch := web.FeedURLs(s.feedBase(c), token, server.Translator(c).Lang)
	return s.renderAccountView(c, http.StatusCreated, web.AccountView{NewFeed: &web.NewFeedURLs{Quotes: quotes, Watch: watch}})
}

// RevokeFeedToken removes the signed-in user's feed token; its addresses
// are 404 from now on. None to revoke is not found.
func (s *Handlers) RevokeFeedToken(c echo.Context) error {
	if err := s.Store.RevokeFeedToken(c.Request().Context(), s.Actor(c)); err != nil {
		return err
	}
	return s.RedirectWithFlash(c, "/account#feeds", "ok", "account.feeds.revoked")
}

// feedBase is the site's absolute address the feeds and their addresses
// are written with: GPUQUOTE_PUBLIC_URL when set, else the address the
// request came to.
func (s *Handlers) feedBase(c echo.Context) string { return s.FeedBase(c) }

// feedUser is the user a feed token names, and the token's time; an
// unknown, revoked or replaced token, or a disabled user's, is 404, like
// an address that names nothing, so tokens cannot be probed
// (docs/RULES.md §24.6). A use is recorded at most once a minute.
func (s *Handlers) feedUser(c echo.Context, token string) (userID int64, made time.Time, err error) {
	if !auth.LooksLikeFeedToken(token) {
		return 0, made, echo.ErrNotFound
	}
	ctx := c.Request().Context()
	t, found, err := s.Store.FeedTokenUser(ctx, auth.HashToken(token))
	if err != nil {
		return 0, made, err
	}
	if !found {
		return 0, made, echo.ErrNotFound
	}
	if err := s.Store.TouchFeedToken(ctx, t.UserID, s.Now()); err != nil {
		return 0, made, err
	}
	return t.UserID, t.CreatedAt, nil
}

// feedTranslator is the feed's language: ?lang= (zh-CN or en) when
// given, else the request's (Accept-Language), else Chinese.
func (s *Handlers) feedTranslator(c echo.Context) *i18n.Translator {
	if l := i18n.Lang(c.QueryParam("lang")); l.Valid() {
		return s.Catalog.Translator(l)
	}
	return server.Translator(c)
}

// QuotesFeed is the Atom feed of the newest published quote versions
// (docs/RULES.md §24.5), read with a feed token in ?token=.
func (s *Handlers) QuotesFeed(c echo.Context) error {
	token := c.QueryParam("token")
	_, made, err := s.feedUser(c, token)
	if err != nil {
		return err
	}
	versions, err := s.Store.FeedQuoteVersions(c.Request().Context(), feed.MaxEntries)
	if err != nil {
		return err
	}
	base := s.feedBase(c)
	tr := s.feedTranslator(c)
	self := base + "/feeds/quotes.atom?" + c.QueryString()
	return sendFeed(c, web.NewQuotesFeed(tr, base, self, versions, made))
}

// WatchFeed is the Atom feed of the events of a user's watches
// (docs/RULES.md §24.5), read at /feeds/watch/<feed token>.atom.
func (s *Handlers) WatchFeed(c echo.Context) error {
	token, ok := strings.CutSuffix(c.Param("token"), ".atom")
	if !ok {
		return echo.ErrNotFound
	}
	userID, made, err := s.feedUser(c, token)
	if err != nil {
		return err
	}
	notices, err := s.Store.WatchNotices(c.Request().Context(), userID, feed.MaxEntries)
	if err != nil {
		return err
	}
	// Each match in both languages, as the notifications page words it; the
	// feed picks the reader's.
	zh, en := s.Catalog.Translator(i18n.ZH), s.Catalog.Translator(i18n.EN)
	events := make([]feed.WatchEvent, len(notices))
	for i, it := range notices {
		events[i] = feed.WatchEvent{ID: it.EntityID, TitleZH: notify.WatchSentence(zh, it), TitleEN: notify.WatchSentence(en, it),
			Link: it.Path(), At: it.CreatedAt, SummaryZH: notify.WatchSentence(zh, it), SummaryEN: notify.WatchSentence(en, it)}
	}
	base := s.feedBase(c)
	self := base + c.Request().URL.EscapedPath()
	if q := c.QueryString(); q != "" {
		self += "?" + q
	}
	return sendFeed(c, web.NewWatchFeed(s.feedTranslator(c), base, self, userID, events, made))
}

// sendFeed answers a feed: its bytes with a strong ETag of them and its
// updated time as Last-Modified; 304 to a request whose If-None-Match
// names the tag or, without one, whose If-Modified-Since is not before
// that time. Cache-Control is private: the address holds a user's token.
func sendFeed(c echo.Context, f feed.Feed) error {
	b, err := f.Atom()
	if err != nil {
		return err
	}
	h := c.Response().Header()
	etag := server.BytesETag(b)
	h.Set("ETag", etag)
	h.Set("Last-Modified", f.Updated.UTC().Format(http.TimeFormat))
	h.Set("Cache-Control", "private, no-cache")
	req := c.Request()
	if inm := req.Header.Get("If-None-Match"); inm != "" {
		if server.ETagMatches(inm, etag) {
			return c.NoContent(http.StatusNotModified)
		}
	} else if ims, err := http.ParseTime(req.Header.Get("If-Modified-Since")); err == nil && !f.Updated.Truncate(time.Second).After(ims) {
		return c.NoContent(http.StatusNotModified)
	}
	return c.Blob(http.StatusOK, feed.ContentType, b)
}
