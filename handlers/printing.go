package handlers

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/netip"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/printing"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Printed documents and their inspection links. The layout of each kind
// is its declaration's (workflows/<kind>/print.go); the link is our
// design: a random token (256 bits, base64url) stored as its SHA-256,
// bound to one document, valid until its shipment period's end plus a
// grace (movements, Annex VII documents) or for a short time
// (notifications). Only the organisation that printed a link lists it,
// revokes it and sees its uses; a use keeps the reader's network, not the
// reader's address (shortAddress).

type PrintDocumentRequest struct {
	DocumentID string `json:"documentId" required:"true" label:"Document|Dokument"`
	Language   string `json:"language" doc:"en (the default) or de: the language of the form's titles and words (the content prints as recorded)" label:"Language of the form|Sprache des Formulars" help:"English or German: the titles and words of the form.|Englisch oder Deutsch: die Überschriften und Wörter des Formulars."`
}

type PrintDocumentResponse struct {
	Document                []byte    `json:"document" doc:"the form as a PDF (A4, fonts embedded), base64" label:"Form (PDF)|Formular (PDF)"`
	FileName                string    `json:"fileName" doc:"<number>-v<version>.pdf" label:"File name|Dateiname"`
	InspectionLink          string    `json:"inspectionLink" doc:"the link the form's QR code holds: GET it without login for the document's current state (HTML or PDF by Accept); WASTEFLOW_PUBLIC_URL, or the address the request came to" label:"Inspection link|Prüflink"`
	InspectionLinkExpiresAt time.Time `json:"inspectionLinkExpiresAt" label:"Link valid until|Link gültig bis"`
}

type InspectionLinksRequest struct {
	DocumentID string `json:"documentId" required:"true" label:"Document|Dokument"`
}

type RevokeInspectionLinksResponse struct {
	Revoked int64 `json:"revoked" doc:"how many links were still valid and are revoked now" label:"Links revoked|Widerrufene Links"`
}

type InspectionUse struct {
	At            time.Time `json:"at" label:"Read at|Gelesen am"`
	ClientAddress string    `json:"clientAddress" doc:"the reader's network, not the address: an IPv4 address without its last octet (203.0.113.0/24), an IPv6 address without its last 80 bits (2001:db8:1::/48)" label:"Network of the reader|Netz des Lesers"`
	UserAgent     string    `json:"userAgent" label:"Browser|Browser"`
	Format        string    `json:"format" doc:"html or pdf" label:"Format|Format"`
}

type InspectionLinkInfo struct {
	ID             string          `json:"id" label:"Link|Link"`
	OrganisationID string          `json:"organisationId" doc:"the organisation whose account printed it" label:"Printed by|Gedruckt von"`
	CreatedAt      time.Time       `json:"createdAt" label:"Created|Erstellt"`
	ExpiresAt      time.Time       `json:"expiresAt" label:"Valid until|Gültig bis"`
	RevokedAt      *time.Time      `json:"revokedAt" label:"Revoked at|Widerrufen am"`
	State          string          `json:"state" doc:"VALID, EXPIRED or REVOKED" label:"Status|Status"`
	Uses           int64           `json:"uses" doc:"how many times the link was read" label:"Times read|Anzahl Abrufe"`
	RecentUses     []InspectionUse `json:"recentUses" doc:"the newest uses, newest first (at most 50)" label:"Recent reads|Letzte Abrufe"`
}

type ListInspectionLinksResponse struct {
	Links []InspectionLinkInfo `json:"links" doc:"newest first (at most 100)" label:"Inspection links|Prüflinks"`
}

func printLanguage(lang string) (string, error) {
	switch lang {
	case "", "en":
		return "en", nil
	case "de":
		return "de", nil
	}
	return "", status.Invalid("language", "en or de")
}

func (s *Server) printDocument(ctx context.Context, r *PrintDocumentRequest) (*PrintDocumentResponse, error) {
	if err := needDocument(r.DocumentID); err != nil {
		return nil, err
	}
	lang, err := printLanguage(r.Language)
	if err != nil {
		return nil, err
	}
	p, err := s.docs.Print(ctx, r.DocumentID, lang)
	if err != nil {
		return nil, err
	}
	token, hash, err := newInspectionToken()
	if err != nil {
		return nil, err
	}
	principal := reqctx.From(ctx).Principal
	link := &models.InspectionLink{ID: "ins_" + hash[:24], ProviderID: p.Doc.ProviderID, DocumentID: p.Doc.ID, TokenHash: hash,
		OrganisationID: principal.OrganisationID, CreatedBy: strconv.FormatInt(principal.AccountID, 10), CreatedAt: p.Now,
		ExpiresAt: s.inspectionExpiry(p)}
	if err := models.NewInspectionStore(s.db).Create(ctx, link); err != nil {
		return nil, err
	}
	p.Form.InspectionLink = s.inspectionURL(ctx, token)
	pdf, err := printing.Render(p.Form)
	if err != nil {
		return nil, err
	}
	return &PrintDocumentResponse{Document: pdf, FileName: fileName(p.Doc.Number, p.Doc.Version), InspectionLink: p.Form.InspectionLink,
		InspectionLinkExpiresAt: link.ExpiresAt}, nil
}

// inspectionExpiry: a link lives at least the TTL from its print, and
// until the shipment period's end plus the grace when there is one.
func (s *Server) inspectionExpiry(p *documents.Printed) time.Time {
	at := p.Now.Add(s.cfg.Inspection.TTL)
	if !p.ShipmentEnd.IsZero() {
		if end := p.ShipmentEnd.Add(s.cfg.Inspection.Grace); end.After(at) {
			at = end
		}
	}
	return at.UTC().Truncate(time.Second)
}

func (s *Server) inspectionURL(ctx context.Context, token string) string {
	return s.linkBase(ctx) + "/inspect/" + token
}

var fileNameUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func fileName(number string, version int64) string {
	return fileNameUnsafe.ReplaceAllString(number, "_") + "-v" + strconv.FormatInt(version, 10) + ".pdf"
}

// newInspectionToken draws a token (256 bits, base64url without padding)
// and its SHA-256 in hex, what is stored.
func newInspectionToken() (token, hash string, err error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", "", err
	}
	token = base64.RawURLEncoding.EncodeToString(b)
	return token, tokenHash(token), nil
}

func tokenHash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

var tokenShape = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

func (s *Server) revokeInspectionLinks(ctx context.Context, r *InspectionLinksRequest) (*RevokeInspectionLinksResponse, error) {
	if err := needDocument(r.DocumentID); err != nil {
		return nil, err
	}
	doc, err := s.docs.Visible(ctx, r.DocumentID)
	if err != nil {
		return nil, err
	}
	now, err := s.docs.ProviderNow(ctx, doc.ProviderID)
	if err != nil {
		return nil, err
	}
	p := reqctx.From(ctx).Principal
	n, err := models.NewInspectionStore(s.db).Revoke(ctx, doc.ID, p.OrganisationID, p.OrganisationID+"/"+strconv.FormatInt(p.AccountID, 10), now)
	if err != nil {
		return nil, err
	}
	return &RevokeInspectionLinksResponse{Revoked: n}, nil
}

func (s *Server) listInspectionLinks(ctx context.Context, r *InspectionLinksRequest) (*ListInspectionLinksResponse, error) {
	if err := needDocument(r.DocumentID); err != nil {
		return nil, err
	}
	doc, err := s.docs.Visible(ctx, r.DocumentID)
	if err != nil {
		return nil, err
	}
	now, err := s.docs.ProviderNow(ctx, doc.ProviderID)
	if err != nil {
		return nil, err
	}
	links, uses, err := models.NewInspectionStore(s.db).Links(ctx, doc.ID, reqctx.From(ctx).Principal.OrganisationID, 100, 50)
	if err != nil {
		return nil, err
	}
	out := &ListInspectionLinksResponse{Links: make([]InspectionLinkInfo, 0, len(links))}
	for _, l := range links {
		info := InspectionLinkInfo{ID: l.ID, OrganisationID: l.OrganisationID, CreatedAt: l.CreatedAt, ExpiresAt: l.ExpiresAt, RevokedAt: l.RevokedAt,
			State: linkState(&l, now), RecentUses: []InspectionUse{}}
		if u := uses[l.ID]; u != nil {
			info.Uses = u.Total
			for _, use := range u.Newest {
				info.RecentUses = append(info.RecentUses, InspectionUse{At: use.UsedAt, ClientAddress: shortAddress(use.ClientAddress), UserAgent: use.UserAgent, Format: use.Format})
			}
		}
		out.Links = append(out.Links, info)
	}
	return out, nil
}

// shortAddress is the network a client address belongs to, all that is
// kept and shown of who read a link (personal data, minimised): an IPv4
// address (also one mapped into IPv6) without its last octet, as
// 203.0.113.0/24; an IPv6 address without its last 80 bits, as
// 2001:db8:1::/48; no zone. Anything else is "". A shortened address
// shortens to itself, so rows stored whole before are shown alike.
func shortAddress(a string) string {
	if p, err := netip.ParsePrefix(a); err == nil {
		a = p.Addr().String()
	}
	ip, err := netip.ParseAddr(a)
	if err != nil {
		return ""
	}
	ip = ip.WithZone("").Unmap()
	bits := 48
	if ip.Is4() {
		bits = 24
	}
	p, err := ip.Prefix(bits)
	if err != nil {
		return ""
	}
	return p.String()
}

func linkState(l *models.InspectionLink, now time.Time) string {
	switch {
	case l.RevokedAt != nil:
		return "REVOKED"
	case !now.Before(l.ExpiresAt):
		return "EXPIRED"
	}
	return "VALID"
}

func (s *Server) printOperations() []api.Operation {
	if s.docs == nil {
		return nil
	}
	const co, au = "CompanyDocumentApi", "AuthorityDocumentApi"
	printDesc := "The document as its official form, a PDF (A4): a notification as the notification document of Annex IA, a movement as the " +
		"movement document of Annex IB, an Annex VII document as the Annex VII form, their numbered blocks in the annex's order with the " +
		"annex's titles (English, or German with language de), filled with what the document records so far: parties, waste, the " +
		"acknowledgements, decisions and their conditions, receipts, completion, take-back. The header and footer of every page repeat its " +
		"number and say page n of m; under the title stand its state and version, in the footer the print time and the head of its audit " +
		"chain (GetDocumentHistory's chain.head), against which a paper copy is checked. Each print makes a new inspection link, printed as a " +
		"QR code: it shows anyone who holds it the document's current state without login until inspectionLinkExpiresAt (the shipment " +
		"period's end plus WASTEFLOW_INSPECTION_GRACE for movements and Annex VII documents; WASTEFLOW_INSPECTION_TTL for notifications, " +
		"and at least that for any link), unless revoked (RevokeInspectionLinks). Only the document's parties (the rule of GetDocument: " +
		"anyone else gets the 404 of a missing document; a draft only its author). Our design: the interface names no printing."
	linksDesc := "The inspection links of the document that your organisation printed, newest first: who printed each, when it expires, whether " +
		"it was revoked, and how often and from which network it was read (the newest 50 uses of each; an address is kept and shown without " +
		"its last octet, IPv4 203.0.113.0/24, or its last 80 bits, IPv6 2001:db8:1::/48). Another party's links, and who read them, are " +
		"that party's: they are not listed. Only the document's parties (anyone else gets the 404 of a missing document). Our design."
	revokeDesc := "Revokes every inspection link of the document that your organisation printed and that is still valid: from now on they " +
		"answer 404, like any absent page (a lost paper copy, a link sent to the wrong person); printing again makes a new link. Another " +
		"party's links stay valid (revoked counts only yours; that party revokes its own). Only the document's parties. Our design."
	op := func(service, method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgDiwass, Service: service, Method: method, Summary: summary, Description: desc}
	}
	read := func(o api.Operation) api.Operation { o.Scope = rules.ScopeDocumentsRead; return o }
	var ops []api.Operation
	for _, svc := range []string{co, au} {
		who := " Company accounts (an authority gets 403, code 7)."
		if svc == au {
			who = " Authority accounts (a company gets 403, code 7)."
		}
		ops = append(ops,
			api.Unary(read(op(svc, "PrintDocument", "A document as its official form (PDF), with an inspection link", printDesc+who)), s.printDocument),
			api.Unary(read(op(svc, "ListInspectionLinks", "A document's inspection links and their uses", linksDesc+who)), s.listInspectionLinks),
			api.Unary[InspectionLinksRequest, RevokeInspectionLinksResponse](op(svc, "RevokeInspectionLinks", "Revoke a document's inspection links", revokeDesc+who), s.revokeInspectionLinks),
		)
	}
	return ops
}

// The inspection page: GET /inspect/{token}, no login.

// inspectLimiter bounds the reads of inspection links per client address
// on this instance (a token bucket each; idle buckets are dropped).
type inspectLimiter struct {
	mu       sync.Mutex
	perMin   int
	buckets  map[string]*clientBucket
	lastTrim time.Time
}

type clientBucket struct {
	lim  *rate.Limiter
	seen time.Time
}

func (l *inspectLimiter) allow(addr string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buckets == nil {
		l.buckets = map[string]*clientBucket{}
	}
	if now.Sub(l.lastTrim) > time.Minute || len(l.buckets) > 100_000 {
		for k, b := range l.buckets {
			if now.Sub(b.seen) > 2*time.Minute {
				delete(l.buckets, k)
			}
		}
		l.lastTrim = now
	}
	b := l.buckets[addr]
	if b == nil {
		b = &clientBucket{lim: rate.NewLimiter(rate.Limit(float64(l.perMin)/60), max(1, l.perMin/3))}
		l.buckets[addr] = b
	}
	b.seen = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return false, d
	}
	return true, 0
}

func (s *Server) inspect(c *gin.Context) {
	ctx := c.Request.Context()
	client := reqctx.From(ctx).ClientIP
	if ok, wait := s.inspectLimit.allow(client, time.Now()); !ok {
		renderError(c, status.New(status.ResourceExhausted, "too many inspection requests from your address; retry later").
			RetryAfter(max(time.Second, wait.Round(time.Second))))
		return
	}
	token := c.Param("token")
	if !tokenShape.MatchString(token) {
		s.noRoute(c)
		return
	}
	store := models.NewInspectionStore(s.db)
	link, err := store.ByHash(ctx, tokenHash(token))
	if errors.Is(err, models.ErrNotFound) {
		s.noRoute(c)
		return
	}
	if err != nil {
		renderError(c, err)
		return
	}
	now, err := s.docs.ProviderNow(ctx, link.ProviderID)
	if err != nil {
		renderError(c, err)
		return
	}
	if linkState(link, now) != "VALID" {
		s.noRoute(c)
		return
	}
	format := "html"
	switch q := c.Query("format"); {
	case q == "pdf":
		format = "pdf"
	case q == "html":
	case c.NegotiateFormat("text/html", "application/pdf") == "application/pdf":
		format = "pdf"
	}
	lang := inspectLanguage(c)
	p, err := s.docs.PrintFor(ctx, link.ProviderID, link.DocumentID, lang)
	if err != nil {
		renderError(c, err)
		return
	}
	use := &models.InspectionUse{LinkID: link.ID, DocumentID: link.DocumentID, UsedAt: now, ClientAddress: shortAddress(client),
		UserAgent: truncate(c.Request.UserAgent(), 256), Format: format}
	if err := store.RecordUse(ctx, use); err != nil {
		renderError(c, err)
		return
	}
	p.Form.InspectionLink = s.inspectionURL(ctx, token)
	// The token is in the address: no referrer leaves the page, nothing
	// is cached or indexed.
	c.Header("Referrer-Policy", "no-referrer")
	c.Header("Cache-Control", "no-store")
	c.Header("X-Robots-Tag", "noindex, nofollow")
	c.Header("Vary", "Accept, Accept-Language")
	if format == "pdf" {
		pdf, err := printing.Render(p.Form)
		if err != nil {
			renderError(c, err)
			return
		}
		c.Header("Content-Disposition", `inline; filename="`+fileName(p.Doc.Number, p.Doc.Version)+`"`)
		c.Data(http.StatusOK, "application/pdf", pdf)
		return
	}
	var b strings.Builder
	if err := inspectPage.Execute(&b, newInspectView(p, lang)); err != nil {
		renderError(c, err)
		return
	}
	c.Data(http.StatusOK, "text/html; charset=utf-8", []byte(b.String()))
}

// inspectLanguage is de when ?lang=de, or when the client prefers German
// (Accept-Language), else en.
func inspectLanguage(c *gin.Context) string {
	if l := c.Query("lang"); l == "de" || l == "en" {
		return l
	}
	for _, part := range strings.Split(c.GetHeader("Accept-Language"), ",") {
		tag := strings.ToLower(strings.TrimSpace(strings.SplitN(part, ";", 2)[0]))
		switch {
		case tag == "de" || strings.HasPrefix(tag, "de-"):
			return "de"
		case tag == "en" || strings.HasPrefix(tag, "en-"):
			return "en"
		}
	}
	return "en"
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
