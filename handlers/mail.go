package handlers

import (
	"context"
	"html/template"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/workflows/mail"
)

// Reminder mails (svc.core.v1.api.MailPreferencesApi, our design): a
// person chooses which mails come, and the links in them confirm the
// address or unsubscribe with one click (RFC 8058).

type MailPreferences struct {
	Email              string `json:"email" doc:"where the mails go; a new address gets a confirmation mail, and no reminder goes to it before its link is followed" label:"E-mail address|E-Mail-Adresse" help:"A new address gets a confirmation mail first; reminders follow once you confirm it.|Eine neue Adresse erhält zuerst eine Bestätigungsmail; Erinnerungen folgen, sobald Sie sie bestätigt haben."`
	EmailConfirmed     bool   `json:"emailConfirmed" doc:"read only" label:"Address confirmed|Adresse bestätigt"`
	Language           string `json:"language" doc:"en (the default) or de" label:"Language of the mails|Sprache der E-Mails" help:"English or German.|Englisch oder Deutsch."`
	DueSoon            bool   `json:"dueSoon" doc:"a mail when a time limit your organisation must meet is due within dueSoonWorkingDays" label:"Remind me before a time limit|Vor Fristablauf erinnern" help:"A mail when a time limit your organisation must meet is near.|Eine E-Mail, wenn eine Frist Ihrer Organisation bald abläuft."`
	DueSoonWorkingDays int32  `json:"dueSoonWorkingDays" doc:"working days of the acting party's place, 1 to 20 (default 3)" label:"Working days ahead|Arbeitstage vorher" help:"1 to 20; 3 if you leave it empty.|1 bis 20; 3, wenn Sie nichts angeben."`
	Overdue            bool   `json:"overdue" doc:"a mail when such a time limit has passed" label:"Tell me when a time limit has passed|Bei Fristablauf benachrichtigen"`
	AwaitingAction     bool   `json:"awaitingAction" doc:"a mail when a document starts waiting for your organisation's action (a time limit opens for it)" label:"Tell me when a document waits for us|Benachrichtigen, wenn ein Dokument auf uns wartet"`
	Digest             bool   `json:"digest" doc:"a daily mail listing every open time limit of your organisation (none on a day without any)" label:"Daily overview|Tägliche Übersicht" help:"One mail a day listing every open time limit.|Eine E-Mail am Tag mit allen offenen Fristen."`
	DigestTime         string `json:"digestTime" doc:"HH:MM in timeZone (default 08:00)" label:"Time of the daily overview|Uhrzeit der täglichen Übersicht" help:"HH:MM, e.g. 08:00.|HH:MM, z. B. 08:00."`
	TimeZone           string `json:"timeZone" doc:"your organisation's time zone (read only): the digest's clock and the due times in mails" label:"Time zone|Zeitzone"`
}

type GetMailPreferencesRequest struct{}

type MailPreferencesResponse struct {
	Preferences MailPreferences `json:"preferences" label:"Mail settings|E-Mail-Einstellungen"`
}

type SetMailPreferencesRequest struct {
	Preferences MailPreferences `json:"preferences" required:"true" doc:"all of them: fields left out are off (or their defaults)" label:"Mail settings|E-Mail-Einstellungen"`
}

func mailView(p *mail.Preferences) MailPreferences {
	return MailPreferences{Email: p.Email, EmailConfirmed: p.EmailConfirmed, Language: p.Language, DueSoon: p.DueSoon,
		DueSoonWorkingDays: int32(p.DueSoonWorkingDays), Overdue: p.Overdue, AwaitingAction: p.AwaitingAction, Digest: p.Digest,
		DigestTime: p.DigestTime, TimeZone: p.TimeZone}
}

func (s *Server) mailOperations() []api.Operation {
	if s.mail == nil {
		return nil
	}
	op := func(method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgCore, Service: "MailPreferencesApi", Method: method, Verb: http.MethodPost, Security: api.AccessToken, Summary: summary, Description: desc}
	}
	return []api.Operation{
		api.Unary(op("GetMailPreferences", "Your choice of reminder mails", "All off until you set them."),
			func(ctx context.Context, _ *GetMailPreferencesRequest) (*MailPreferencesResponse, error) {
				p, err := s.mail.Get(ctx)
				if err != nil {
					return nil, err
				}
				return &MailPreferencesResponse{Preferences: mailView(p)}, nil
			}),
		api.Unary(op("SetMailPreferences", "Choose which reminder mails you get",
			"Each mail comes once per time limit (or day, for the digest), in plain text and HTML, with the document's number and kind, "+
				"what is due, by when in the acting party's zone, the legal basis and a link to the document in the console. Every mail "+
				"carries a one-click unsubscribe link (List-Unsubscribe-Post, RFC 8058). Deadlines that opened or fell overdue before "+
				"mails were switched on are not mailed one by one (the digest lists them). FAILED_PRECONDITION when the server sends no mail."),
			func(ctx context.Context, r *SetMailPreferencesRequest) (*MailPreferencesResponse, error) {
				in := r.Preferences
				p, err := s.mail.Set(ctx, mail.Preferences{Email: in.Email, Language: in.Language, DueSoon: in.DueSoon,
					DueSoonWorkingDays: int(in.DueSoonWorkingDays), Overdue: in.Overdue, AwaitingAction: in.AwaitingAction, Digest: in.Digest, DigestTime: in.DigestTime})
				if err != nil {
					return nil, err
				}
				return &MailPreferencesResponse{Preferences: mailView(p)}, nil
			}),
	}
}

// mailPage is the page of a mail's link: a question with one button (a
// GET changes nothing: mail scanners follow links), or the outcome.
var mailPage = template.Must(template.New("mail").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>wasteflow</title><style>body{font-family:sans-serif;max-width:36em;margin:3em auto;padding:0 1em}button{font-size:1.1em;padding:.5em 1em}</style></head>
<body><h1>wasteflow</h1><p>{{.Text}}</p>
{{if .Button}}<form method="post"><input type="hidden" name="t" value="{{.Token}}"><button type="submit">{{.Button}}</button></form>{{end}}
</body></html>
`))

// mailLink serves /mail/unsubscribe and /mail/confirm: GET asks, POST
// acts (for unsubscribe also RFC 8058's one-click POST, whose body is
// List-Unsubscribe=One-Click and whose token is in the query).
func (s *Server) mailLink(action string) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Header("Cache-Control", "no-store")
		c.Header("X-Robots-Tag", "noindex")
		de := strings.HasPrefix(c.GetHeader("Accept-Language"), "de")
		lang, pick := "en", func(en, de string) string { return en }
		if de {
			lang, pick = "de", func(_, de string) string { return de }
		}
		token := c.Query("t")
		if token == "" {
			token = c.PostForm("t")
		}
		show := func(code int, text, button string) {
			c.Status(code)
			c.Header("Content-Type", "text/html; charset=utf-8")
			_ = mailPage.Execute(c.Writer, map[string]string{"Lang": lang, "Text": text, "Button": button, "Token": token})
		}
		if c.Request.Method == http.MethodGet {
			if action == "unsubscribe" {
				show(http.StatusOK, pick("Stop every reminder mail to this address?", "Alle Erinnerungsmails an diese Adresse abbestellen?"), pick("Unsubscribe", "Abbestellen"))
			} else {
				show(http.StatusOK, pick("Confirm this address for wasteflow's reminder mails?", "Diese Adresse für die Erinnerungsmails von wasteflow bestätigen?"), pick("Confirm", "Bestätigen"))
			}
			return
		}
		var ok bool
		var err error
		if action == "unsubscribe" {
			ok, err = s.mail.Unsubscribe(c.Request.Context(), token)
		} else {
			ok, err = s.mail.Confirm(c.Request.Context(), token)
		}
		switch {
		case err != nil:
			renderError(c, err)
		case !ok:
			show(http.StatusNotFound, pick("This link is not valid (any more).", "Dieser Link ist nicht (mehr) gültig."), "")
		case action == "unsubscribe":
			show(http.StatusOK, pick("Unsubscribed: no more reminder mails. Choose them again in your mail preferences.",
				"Abbestellt: keine Erinnerungsmails mehr. In Ihren Mail-Einstellungen können Sie sie wieder wählen."), "")
		default:
			show(http.StatusOK, pick("Confirmed: your reminder mails come to this address.", "Bestätigt: Ihre Erinnerungsmails kommen an diese Adresse."), "")
		}
	}
}
