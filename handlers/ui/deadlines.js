// wasteflow deadline page: log in, then list the deadlines of your
// organisation (filter, sort, page; overdue and due soon first), a summary
// by state, a CSV download, and each document as the API returns it.
// It talks only to the public API of the server that serves it.
'use strict';
(() => {
  const API = {
    providers: '/svc.core.v1.api.DiscoveryApi/ListProvider',
    login: '/svc.core.v1.api.AuthApi/IssueRefreshToken',
    access: '/svc.core.v1.api.AuthApi/RequestAccess',
    revoke: '/svc.core.v1.api.AuthApi/RevokeRefreshToken',
    list: '/svc.core.v1.api.DeadlineReportApi/ListDeadlines',
    summary: '/svc.core.v1.api.DeadlineReportApi/GetDeadlineSummary',
    export: '/svc.core.v1.api.DeadlineReportApi/ExportDeadlines',
    companyDocument: '/svc.bxa.diwass.v1.api.CompanyDocumentApi/GetDocument',
    authorityDocument: '/svc.bxa.diwass.v1.api.AuthorityDocumentApi/GetDocument',
  };
  // What needs acting on first: OVERDUE, then DUE_SOON, then the rest, each
  // by due date (urgency is 0, 1 or 2 by state; the server sorts, so paging
  // keeps the order).
  const DEFAULT_SORT = [{ path: 'urgency', direction: 'ASC' }, { path: 'due_at', direction: 'ASC' }];
  const PAGE_SIZE = 50;
  const CLOSED = new Set(['MET', 'MET_LATE', 'LAPSED', 'CANCELLED']);
  const STATE_ORDER = ['OVERDUE', 'DUE_SOON', 'OPEN', 'SUSPENDED', 'MET_LATE', 'MET', 'LAPSED', 'CANCELLED'];

  // --- Words ---------------------------------------------------------------
  // Every word the page shows, in English and German. An element with
  // data-i18n="key" gets TEXT[lang][key]; data-i18n-label sets aria-label.
  const TEXT = {
    en: {
      title: 'Deadlines', skip: 'Skip to the content', language: 'Language', logout: 'Log out',
      loginTitle: 'Log in', provider: 'Provider', username: 'Username', password: 'Password', loginButton: 'Log in',
      reportTitle: 'Deadline report', filters: 'Filters', state: 'State', rule: 'Deadline', all: 'All',
      party: 'Who must act (organisation id)', partyHint: 'Exact organisation id, as in the CSV export', partyPlaceholder: 'e.g. auth-nl',
      sortBy: 'Order', apply: 'Apply', download: 'Download CSV',
      caption: 'Deadlines; choose a column header to sort by it',
      colDocument: 'Document', colRule: 'Deadline', colParty: 'Who must act', colDue: 'Due', colState: 'State', colDays: 'Remaining',
      pages: 'Pages', prev: 'Previous', next: 'Next', close: 'Close',
      documentJSON: 'The document as the API returns it (JSON)', openInConsole: 'Open it in the console (log in there)',
      orderDefault: 'Overdue and due soon first, each by due date', orderDefaultButton: 'Overdue and due soon first',
      sortedBy: 'Sorted by {col}, {dir}', ascending: 'ascending', descending: 'descending',
      sortOption: '{col}, {dir}', sortDefault: 'Most urgent first',
      allDeadlines: 'All your deadlines: ', none: 'none',
      noRows: 'No deadlines match these filters.',
      asOf: ' · Days counted from {time}, the provider\'s time',
      pageInfo: '{from}–{to} of {total}', zeroRows: '0 deadlines',
      day: '1 day', days: '{n} days', workingDay: '1 working day', workingDays: '{n} working days',
      left: '{d} left', late: '{d} late', dueToday: 'due today', suspendedLeft: '{d} left (suspended)', suspendedLate: '{d} late (suspended)', suspended: 'suspended',
      showDocument: 'Show document {no}', document: 'Document {no}', loading: 'Loading…', asReturned: 'As {op} returns it:',
      zoneTitle: 'Falls due at the end of its last day where the party acts; your time zone is {zone}',
      yourTime: 'your time ({zone})', yourZoneToo: '{zone} (your zone too)', yours: '{zone} · yours: {time}',
      enterLogin: 'Choose a provider and enter your username and password.',
      sessionEnded: 'Your session has ended. Please log in again.', pleaseLogIn: 'Please log in.',
      noProvider: 'No provider is set up for the {env} environment.',
      noAppToken: 'The server has no app token for this page (WASTEFLOW_UI_APP_TOKEN).',
      noSettings: 'Cannot load the settings: {msg}',
      offline: 'The server cannot be reached. Check your connection and try again.',
      loggedOut: 'You have logged out. To go on, log in again.', httpError: 'The server answered HTTP {status}.', retryIn: 'Try again in {s} s.',
    },
    de: {
      title: 'Fristen', skip: 'Zum Inhalt springen', language: 'Sprache', logout: 'Abmelden',
      loginTitle: 'Anmelden', provider: 'Anbieter', username: 'Benutzername', password: 'Passwort', loginButton: 'Anmelden',
      reportTitle: 'Fristenbericht', filters: 'Filter', state: 'Stand', rule: 'Frist', all: 'Alle',
      party: 'Wer handeln muss (Kennung der Organisation)', partyHint: 'Genaue Kennung der Organisation, wie im CSV-Export', partyPlaceholder: 'z. B. auth-nl',
      sortBy: 'Reihenfolge', apply: 'Anwenden', download: 'CSV herunterladen',
      caption: 'Fristen; wählen Sie eine Spaltenüberschrift, um danach zu sortieren',
      colDocument: 'Dokument', colRule: 'Frist', colParty: 'Wer handeln muss', colDue: 'Fällig', colState: 'Stand', colDays: 'Verbleibend',
      pages: 'Seiten', prev: 'Zurück', next: 'Weiter', close: 'Schließen',
      documentJSON: 'Das Dokument, wie die Schnittstelle es liefert (JSON)', openInConsole: 'In der Konsole öffnen (dort anmelden)',
      orderDefault: 'Überfällige und bald fällige zuerst, jeweils nach Fälligkeit', orderDefaultButton: 'Überfällige und bald fällige zuerst',
      sortedBy: 'Sortiert nach {col}, {dir}', ascending: 'aufsteigend', descending: 'absteigend',
      sortOption: '{col}, {dir}', sortDefault: 'Dringendste zuerst',
      allDeadlines: 'Alle Ihre Fristen: ', none: 'keine',
      noRows: 'Keine Frist passt zu diesen Filtern.',
      asOf: ' · Tage gezählt ab {time}, der Zeit des Anbieters',
      pageInfo: '{from}–{to} von {total}', zeroRows: '0 Fristen',
      day: '1 Tag', days: '{n} Tage', workingDay: '1 Arbeitstag', workingDays: '{n} Arbeitstage',
      left: 'noch {d}', late: '{d} überfällig', dueToday: 'heute fällig', suspendedLeft: 'noch {d} (ausgesetzt)', suspendedLate: '{d} überfällig (ausgesetzt)', suspended: 'ausgesetzt',
      showDocument: 'Dokument {no} anzeigen', document: 'Dokument {no}', loading: 'Wird geladen …', asReturned: 'So, wie {op} es liefert:',
      zoneTitle: 'Fällig am Ende des letzten Tages am Ort der handelnden Partei; Ihre Zeitzone ist {zone}',
      yourTime: 'Ihre Zeit ({zone})', yourZoneToo: '{zone} (auch Ihre Zone)', yours: '{zone} · bei Ihnen: {time}',
      enterLogin: 'Wählen Sie einen Anbieter und geben Sie Benutzernamen und Passwort ein.',
      sessionEnded: 'Ihre Sitzung ist beendet. Bitte melden Sie sich erneut an.', pleaseLogIn: 'Bitte melden Sie sich an.',
      noProvider: 'Für die Umgebung {env} ist kein Anbieter eingerichtet.',
      noAppToken: 'Der Server hat kein App-Token für diese Seite (WASTEFLOW_UI_APP_TOKEN).',
      noSettings: 'Die Einstellungen können nicht geladen werden: {msg}',
      offline: 'Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
      loggedOut: 'Sie haben sich abgemeldet. Um weiterzuarbeiten, melden Sie sich erneut an.', httpError: 'Der Server antwortete mit HTTP {status}.', retryIn: 'Versuchen Sie es in {s} s erneut.',
    },
  };
  // The words for the codes the deadlines carry, [English, German]. The
  // roles are also read from the server's labels (GET /labels.json, list
  // "role"), which win where they exist; a code none of them knows is
  // shown as words ("SOME_CODE" reads "Some code"), never as its name.
  const CODES = {
    states: {
      OPEN: ['Open', 'Offen'], DUE_SOON: ['Due soon', 'Bald fällig'], OVERDUE: ['Overdue', 'Überfällig'], SUSPENDED: ['Suspended', 'Ausgesetzt'],
      MET: ['Met', 'Erfüllt'], MET_LATE: ['Met late', 'Verspätet erfüllt'], LAPSED: ['Lapsed (ended as foreseen)', 'Abgelaufen (wie vorgesehen)'],
      CANCELLED: ['Cancelled', 'Aufgehoben'],
    },
    // the state in the summary's counts ("2 lapsed (ended as foreseen)")
    counts: {
      OPEN: ['open', 'offen'], DUE_SOON: ['due soon', 'bald fällig'], OVERDUE: ['overdue', 'überfällig'], SUSPENDED: ['suspended', 'ausgesetzt'],
      MET: ['met', 'erfüllt'], MET_LATE: ['met late', 'verspätet erfüllt'], LAPSED: ['lapsed (ended as foreseen)', 'abgelaufen (wie vorgesehen)'],
      CANCELLED: ['cancelled', 'aufgehoben'],
    },
    rules: {
      ACKNOWLEDGEMENT_DUE: ['Acknowledgement due', 'Empfangsbestätigung fällig'],
      INFORMATION_REPLY_DUE: ['Information reply due', 'Antwort auf Informationsersuchen fällig'],
      DECISION_DUE: ['Decision due', 'Entscheidung fällig'],
      CHANGE_REPLY_DUE: ['Change reply due', 'Antwort auf Änderung fällig'],
      CONSENT_VALIDITY: ['Consent validity', 'Geltungsdauer der Zustimmung'],
      RECEIPT_CERTIFICATE_DUE: ['Receipt certificate due', 'Eingangsbestätigung fällig'],
      COMPLETION_CERTIFICATE_DUE: ['Completion certificate due', 'Bescheinigung über den Abschluss fällig'],
      TAKE_BACK_DUE: ['Take back due', 'Rücknahme fällig'],
    },
    kinds: {}, // a kind's words are the server's (the list documentKind of /labels.json): each kind declares them
    roles: {
      NOTIFIER: ['Notifier', 'Notifizierende Person'], CONSIGNEE: ['Consignee', 'Empfänger'], FACILITY: ['Facility', 'Anlage'],
      PRODUCER: ['Producer', 'Erzeuger'], CARRIER: ['Carrier', 'Beförderer'], ARRANGER: ['Person who arranges the shipment', 'Veranlasser der Verbringung'],
      AUTHORITY_DISPATCH: ['Competent authority of dispatch', 'Zuständige Behörde am Versandort'],
      AUTHORITY_DESTINATION: ['Competent authority of destination', 'Zuständige Behörde am Bestimmungsort'],
      AUTHORITY_TRANSIT: ['Competent authority of transit', 'Für die Durchfuhr zuständige Behörde'],
    },
    // A LAPSED deadline is no miss: its period ended as the law foresees.
    // What that meant, by rule, in words people read.
    lapsed: {
      DECISION_DUE: ['tacit consent (the transit authority did not object in time)', 'stillschweigende Zustimmung (die Durchfuhrbehörde hat nicht rechtzeitig widersprochen)'],
      CONSENT_VALIDITY: ['consent validity ended', 'Geltungsdauer der Zustimmung endete'],
      '': ['period ended as foreseen', 'Frist wie vorgesehen beendet'],
    },
  };
  // The columns one can sort by (a phone has the #sort select instead of
  // the headers): qpar path -> the column's name in "Sorted by ...".
  const SORTS = {
    document_number: ['document', 'Dokument'], kind: ['kind of document', 'Art des Dokuments'], rule: ['deadline', 'Frist'],
    legal_basis: ['legal basis', 'Rechtsgrundlage'], party: ['who must act', 'wer handeln muss'], due_at: ['due date', 'Fälligkeit'],
    state: ['state', 'Stand'],
  };
  let serverLabels = {}; // list -> code -> {en, de}, from /labels.json when the server has it
  let lang = 'en';

  // t gives the word for key in the page's language, with {name} filled in.
  function t(key, vars = {}) {
    const s = (TEXT[lang] && TEXT[lang][key]) || TEXT.en[key] || key;
    return s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  }
  // code gives the words for a code of a table of CODES.
  function code(table, c, serverList) {
    if (!c) return '';
    const s = serverList && serverLabels[serverList] && serverLabels[serverList][c];
    if (s && (s[lang] || s.en)) return s[lang] || s.en;
    const w = CODES[table][c];
    if (w) return w[lang === 'de' ? 1 : 0];
    return c.charAt(0) + c.slice(1).toLowerCase().replace(/_/g, ' ');
  }
  // locale is the reader's locale for dates: the browser's when it is of
  // the page's language, else the language's usual one.
  function locale() {
    const nav = Intl.DateTimeFormat().resolvedOptions().locale || navigator.language || '';
    if (nav.toLowerCase().startsWith(lang)) return nav;
    return lang === 'de' ? 'de-DE' : 'en-GB';
  }
  const $ = (id) => document.getElementById(id);

  let config = { environment: '', appToken: '', providers: [] };
  let provider = ''; // id of the chosen provider, sent as provider_id
  // Tokens are kept in these variables only (in memory), never in
  // localStorage or sessionStorage: a reload or a closed tab means logging
  // in again, and nothing is left behind in the browser profile.
  let refreshToken = '';
  let accessToken = '';
  let accessValidUntil = 0; // Date.now() after which we refresh before a call
  let refreshing = null; // the one RequestAccess in flight, shared by all callers
  let refreshTimer = 0;

  let filters = { state: '', rule: '', party: '' }; // as last applied
  let sort = DEFAULT_SORT; // qpar sort entries, earlier ones first
  let pageStart = 0;
  let total = 0;
  let loadSeq = 0;

  // request sends one call; on failure it throws an Error carrying the
  // message of the server's error body ({code, message, details}).
  async function request(method, path, { body, token } = {}) {
    const headers = {};
    if (provider) headers.provider_id = provider;
    if (token) headers.Authorization = 'Bearer ' + token;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let resp;
    try {
      resp = await fetch(path, {
        method, headers, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      // no answer at all: the network or the server is down
      throw new Error(t('offline'));
    }
    if (!resp.ok) throw await apiError(resp);
    return resp;
  }

  async function apiError(resp) {
    let message = '';
    try { message = (await resp.json()).message || ''; } catch { /* not JSON */ }
    const err = new Error(message || t('httpError', { status: resp.status }));
    err.status = resp.status;
    const retry = resp.headers.get('Retry-After');
    if (resp.status === 429 && retry) err.message += ' ' + t('retryIn', { s: retry });
    return err;
  }

  // --- Token rotation ------------------------------------------------------
  // RequestAccess consumes the refresh token it is sent and answers with an
  // access token (5 minutes) and a NEW refresh token, which replaces the old
  // one. Presenting a consumed refresh token again revokes the whole session,
  // so two RequestAccess calls must never run with one token. Hence every
  // refresh goes through refreshAccess(): while one is in flight, all callers
  // (the timer, API calls, a retry after 401) get that same promise, and the
  // new refresh token is stored before the next refresh can start.
  function refreshAccess() {
    if (!refreshing) {
      const spent = refreshToken;
      refreshing = request('POST', API.access, { token: spent })
        .then((r) => r.json())
        .then((t) => {
          if (refreshToken !== spent) return; // logged out meanwhile
          refreshToken = t.refreshToken;
          accessToken = t.accessToken;
          scheduleRefresh(t.accessToken, t.accessTokenExpiresAt);
        })
        .catch((e) => {
          if (e.status === 401 && refreshToken === spent) endSession(t('sessionEnded'));
          throw e;
        })
        .finally(() => { refreshing = null; });
    }
    return refreshing;
  }

  // The server's clock may differ from this computer's, so the lifetime is
  // read from the token (exp - iat) and counted from now; the server's
  // accessTokenExpiresAt is only the fallback.
  function lifetime(token, expiresAt) {
    const c = claims(token);
    if (c.exp > c.iat) return (c.exp - c.iat) * 1000;
    return Math.max(Date.parse(expiresAt) - Date.now(), 0) || 60 * 1000;
  }

  // claims reads a token's payload ({} when it is not a JWT we can read).
  function claims(token) {
    try {
      return JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) || {};
    } catch {
      return {};
    }
  }

  // scheduleRefresh refreshes shortly before the access token expires: a
  // minute early (a fifth of the lifetime for shorter tokens). Timers stop
  // while a laptop sleeps, so api() also checks before every call.
  function scheduleRefresh(token, expiresAt) {
    const life = lifetime(token, expiresAt);
    const wait = life - Math.min(60 * 1000, life / 5);
    accessValidUntil = Date.now() + wait;
    clearTimeout(refreshTimer);
    // setTimeout reads its delay as a signed 32-bit number: above 2^31-1 ms
    // (24.8 days) it wraps and may fire at once, so the delay is capped.
    refreshTimer = setTimeout(() => refreshAccess().catch(() => {}), Math.min(wait, 2 ** 31 - 1));
  }

  // api calls an operation with a valid access token; after a 401 (the
  // token expired while the computer slept) it refreshes once and retries.
  async function api(method, path, body) {
    if (!refreshToken) throw new Error(t('pleaseLogIn'));
    if (Date.now() >= accessValidUntil) await refreshAccess();
    try {
      return await request(method, path, { body, token: accessToken });
    } catch (e) {
      if (e.status !== 401) throw e;
      await refreshAccess();
      return request(method, path, { body, token: accessToken });
    }
  }

  // --- Session -------------------------------------------------------------
  async function login(ev) {
    ev.preventDefault();
    showMessage('login-error', '');
    showMessage('login-notice', '');
    const username = $('username').value.trim();
    const password = $('password').value;
    provider = $('provider').value;
    if (!provider || !username || !password) {
      showMessage('login-error', t('enterLogin'));
      return;
    }
    $('login').disabled = true;
    try {
      const r = await request('POST', API.login, {
        body: { usernameCredentials: { username, password }, appToken: config.appToken },
      });
      refreshToken = (await r.json()).refreshToken;
      await refreshAccess();
    } catch (e) {
      endSession(e.message);
      return;
    } finally {
      $('login').disabled = false;
    }
    $('password').value = '';
    $('who').textContent = `${username} · ${$('provider').selectedOptions[0].textContent}`;
    setLoggedIn(true);
    run(() => Promise.all([loadTable(), loadSummary()]));
    if (documentInHash()) showDocument(); // a link followed before logging in
  }

  function endSession(message) {
    clearTimeout(refreshTimer);
    refreshToken = accessToken = '';
    accessValidUntil = 0;
    if ($('document-view').open) $('document-view').close();
    $('document-json').textContent = '';
    $('table').tBodies[0].replaceChildren();
    $('summary').replaceChildren();
    setLoggedIn(false);
    showMessage('login-error', message);
    showMessage('login-notice', '');
  }

  function logout() {
    const at = accessToken, rt = refreshToken;
    endSession('');
    showMessage('login-notice', t('loggedOut'));
    // Best effort: end the session on the server too (needs no scope).
    if (at && rt) request('POST', API.revoke, { body: { refreshToken: rt }, token: at }).catch(() => {});
  }

  function setLoggedIn(on) {
    $('login-view').hidden = on;
    $('report-view').hidden = !on;
    $('logout').hidden = !on;
    $('who').hidden = !on;
    showMessage('error', '');
    (on ? $('summary') : $('username')).focus();
  }

  // --- Report --------------------------------------------------------------
  function qparFilter(f) {
    const out = [];
    for (const path of ['state', 'rule', 'party']) {
      if (f[path]) out.push({ path, op: 'EQUAL', operands: [{ s: f[path] }] });
    }
    return out;
  }

  async function loadTable() {
    const seq = ++loadSeq;
    $('table').setAttribute('aria-busy', 'true');
    try {
      const r = await api('POST', API.list, {
        qpar: { filter: qparFilter(filters), sort, pageStart, pageSize: PAGE_SIZE },
      });
      const data = await r.json();
      if (seq !== loadSeq) return; // a newer request replaced this one
      total = Number(data.total);
      renderAsOf(data.now);
      renderRows(data.entries);
      renderPager();
    } finally {
      if (seq === loadSeq) $('table').setAttribute('aria-busy', 'false');
    }
  }

  async function loadSummary() {
    const data = await (await api('POST', API.summary, {})).json();
    const counts = {};
    for (const c of data.byRuleAndState) counts[c.state] = (counts[c.state] || 0) + Number(c.count);
    lastCounts = counts;
    renderSummary();
  }

  let lastCounts = null; // the summary's counts by state, to say again in another language

  function renderSummary() {
    if (!lastCounts) return;
    const counts = lastCounts;
    const parts = [el('strong', t('allDeadlines'))];
    const states = STATE_ORDER.filter((s) => counts[s]);
    states.forEach((s, i) => {
      if (i) parts.push(' · ');
      parts.push(el('span', `${counts[s]} ${code('counts', s)}`, 'count-' + s.toLowerCase()));
    });
    if (!states.length) parts.push(t('none'));
    $('summary').replaceChildren(...parts);
  }

  let lastEntries = null; // the rows shown, to say again in another language
  let lastNow = '';

  function renderRows(entries) {
    lastEntries = entries;
    const tbody = $('table').tBodies[0];
    if (!entries.length) {
      const td = el('td', t('noRows'), 'empty kern-table__cell');
      td.colSpan = 6;
      tbody.replaceChildren(el('tr', td, 'kern-table__row'));
      return;
    }
    const heads = [...$('table').tHead.rows[0].cells].map((th) => th.textContent.trim());
    tbody.replaceChildren(...entries.map((e) => {
      const tr = el('tr', [], 'kern-table__row');
      tr.dataset.number = e.documentNumber;
      tr.dataset.state = e.state;
      tr.dataset.rule = e.rule;
      // The due time where it falls due (the acting party's place), and
      // the viewer's own time when that is another zone.
      // Date and time may go on two lines, so that the table fits narrower windows.
      const due = el('time', [el('span', formatDate(e.dueAt, e.timeZone, DATE) + ','), ' ', el('span', formatDate(e.dueAt, e.timeZone, TIME))]);
      due.dateTime = e.dueAt;
      due.dataset.zone = e.timeZone || '';
      const days = daysLeft(e);
      const badge = el('span', el('span', code('states', e.state), 'kern-label kern-label--small'),
        'badge badge-' + e.state.toLowerCase() + ' kern-badge kern-badge--small' + BADGE[e.state]);
      const state = el('td', badge, 'state');
      if (e.state === 'LAPSED') state.append(el('small', code('lapsed', e.rule in CODES.lapsed ? e.rule : ''), 'meaning'));
      // The number opens the document (see showDocument).
      const link = el('a', e.documentNumber, 'doc-link kern-link');
      link.href = '#document=' + encodeURIComponent(e.documentId);
      link.dataset.documentId = e.documentId;
      link.title = t('showDocument', { no: e.documentNumber });
      const cells = [
        el('td', [link, el('small', code('kinds', e.kind, 'documentKind'), 'kind')], 'number'),
        el('td', [el('span', code('rules', e.rule), 'rule-name'), el('small', basis(e.legalBasis), 'basis')], 'rule'),
        el('td', [el('span', e.party, 'org'), el('small', code('roles', e.partyRole, 'role'))], 'party'),
        el('td', [due, zoneNote(e)], 'due'),
        state,
        daysCell(days),
      ];
      // On a phone the rows stand as cards: each cell says its column.
      cells.forEach((td, i) => { td.classList.add('kern-table__cell'); td.dataset.label = heads[i]; });
      tr.append(...cells);
      return tr;
    }));
  }

  // The badge of each state: KERN's feedback colours, and always its word.
  const BADGE = {
    OVERDUE: ' kern-badge--danger', DUE_SOON: ' kern-badge--warning', OPEN: ' kern-badge--info', MET: ' kern-badge--success',
    MET_LATE: ' kern-badge--success', SUSPENDED: '', LAPSED: '', CANCELLED: '',
  };

  // basis is a legal basis in the page's language (the server says it in English).
  function basis(text) {
    return lang === 'de' ? (text || '').replace('Regulation (EU)', 'Verordnung (EU)').replace(/\bArt\. /g, 'Art. ') : text || '';
  }

  // daysLeft says what the server counted for a running deadline: calendar
  // days to the due day at the acting party's place, from today by the
  // provider's clock (its test clock in a sandbox), never this computer's;
  // the working days go in the title. For a suspended deadline it says what
  // was left when it was suspended.
  function daysLeft(e) {
    if (CLOSED.has(e.state) || e.closedAt) return { text: '—' };
    if (e.state === 'SUSPENDED') return { text: suspendedLeft(e) };
    if (e.daysLeft == null) return { text: '—' };
    const n = Number(e.daysLeft), w = Number(e.workingDaysLeft);
    const days = (k) => (k === 1 ? t('day') : t('days', { n: k }));
    const wd = (k) => (k === 1 ? t('workingDay') : t('workingDays', { n: k }));
    const working = Number.isFinite(w) ? t(w < 0 ? 'late' : 'left', { d: wd(Math.abs(w)) }) : '';
    if (n < 0) return { text: t('late', { d: days(-n) }), late: true, title: working };
    // OVERDUE with days still ahead: swept as of a later time (admin sweep -as-of).
    if (e.state === 'OVERDUE') return { text: '—' };
    if (n === 0) return { text: t('dueToday'), title: working };
    return { text: t('left', { d: days(n) }), title: working };
  }

  // renderAsOf says from when the days are counted: the provider's time,
  // which a sandbox's test clock may have moved ahead.
  function renderAsOf(now) {
    lastNow = now || '';
    $('as-of').textContent = now ? t('asOf', { time: formatDate(now) }) : '';
  }

  // suspendedLeft says a suspended deadline's remaining time in days, as the
  // CSV and the terminal report do ("31 days left (suspended)"; a part of a
  // day counts as a day). The API gives it as a duration ("2677981s"): the
  // due date minus the start of the suspension.
  function suspendedLeft(e) {
    const m = /^(-?\d+(?:\.\d+)?)s$/.exec(e.remaining || '');
    const secs = m ? Number(m[1]) : (Date.parse(e.dueAt) - Date.parse(e.suspendedSince)) / 1000;
    if (!Number.isFinite(secs)) return t('suspended');
    const n = Math.ceil(Math.abs(secs) / 86400);
    return t(secs < 0 ? 'suspendedLate' : 'suspendedLeft', { d: n === 1 ? t('day') : t('days', { n }) });
  }

  function daysCell(days) {
    const td = el('td', days.text, 'days' + (days.late ? ' late' : ''));
    if (days.title) td.title = days.title;
    return td;
  }

  function renderPager() {
    const last = Math.min(pageStart + PAGE_SIZE, total);
    $('page-info').textContent = total ? t('pageInfo', { from: pageStart + 1, to: last, total }) : t('zeroRows');
    $('prev').disabled = pageStart === 0;
    $('next').disabled = last >= total;
  }

  // markSort marks the sorted column and says the order above the table.
  function markSort() {
    const byDefault = sort === DEFAULT_SORT;
    for (const th of $('table').tHead.rows[0].cells) {
      if (!byDefault && th.dataset.sort === sort[0].path) {
        th.setAttribute('aria-sort', sort[0].direction === 'ASC' ? 'ascending' : 'descending');
      } else th.removeAttribute('aria-sort');
    }
    $('order').textContent = byDefault ? t('orderDefault')
      : t('sortedBy', { col: sortName(sort[0].path), dir: t(sort[0].direction === 'ASC' ? 'ascending' : 'descending') });
    $('order-default').hidden = byDefault;
    $('sort').value = byDefault ? '' : sort[0].path + ':' + sort[0].direction;
  }

  function sortName(path) {
    return SORTS[path] ? SORTS[path][lang === 'de' ? 1 : 0] : path;
  }

  // --- Document ------------------------------------------------------------
  // A document number links to #document=<id> on this page: the tokens live
  // in this page's memory only, so another page or tab could not read the
  // document. Following the link shows the document as the API returns it
  // (GetDocument of the service for the caller's kind of organisation:
  // companies and authorities read documents through different ones),
  // pretty-printed, until a console shows documents properly.
  let documentSeq = 0;

  function documentInHash() {
    const m = /^#document=(.+)$/.exec(location.hash);
    return m ? decodeURIComponent(m[1]) : '';
  }

  async function showDocument() {
    const id = documentInHash();
    const view = $('document-view');
    if (!id || !refreshToken) {
      if (view.open) view.close();
      return;
    }
    const seq = ++documentSeq;
    const link = [...document.querySelectorAll('a.doc-link')].find((a) => a.dataset.documentId === id);
    const path = claims(accessToken).okd === 'authority' ? API.authorityDocument : API.companyDocument;
    const operation = path.split('.').pop(); // CompanyDocumentApi/GetDocument
    $('document-title').textContent = t('document', { no: link ? link.textContent : id });
    $('document-json').textContent = '';
    $('document-status').textContent = t('loading');
    $('document-console').hidden = true;
    if (!view.open) view.showModal();
    try {
      const data = await (await api('POST', path, { documentId: id })).json();
      if (seq !== documentSeq) return;
      $('document-status').textContent = t('asReturned', { op: operation });
      // Empty fields (null) are left out: they say nothing to a reader.
      $('document-json').textContent = JSON.stringify(data, (k, v) => (v === null ? undefined : v), 2);
      $('document-console').href = '/ui#/doc/' + encodeURIComponent(id);
      $('document-console').hidden = false;
    } catch (e) {
      if (seq === documentSeq) $('document-status').textContent = `${operation}: ${e.message}`;
    }
  }

  // download fetches the CSV with the table's filters (it needs headers, so
  // a plain link cannot do) and saves it through a temporary <a download>.
  async function download() {
    const q = new URLSearchParams();
    for (const key of ['state', 'rule', 'party']) if (filters[key]) q.append(key, filters[key]);
    const r = await api('GET', API.export + (q.toString() ? '?' + q : ''));
    const blob = await r.blob();
    const m = /filename="?([^";]+)"?/.exec(r.headers.get('Content-Disposition') || '');
    const url = URL.createObjectURL(blob);
    const a = el('a', '');
    a.href = url;
    a.download = m ? m[1] : 'deadlines.csv';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60 * 1000);
  }

  // --- Helpers -------------------------------------------------------------
  // run shows an action's error plainly above the table.
  async function run(fn) {
    showMessage('error', '');
    try {
      await fn();
    } catch (e) {
      if (refreshToken) showMessage('error', e.message);
    }
  }

  // showMessage says text in an alert (its .message), or hides it.
  function showMessage(id, text) {
    const box = $(id);
    (box.querySelector('.message') || box).textContent = text;
    box.hidden = !text;
  }

  function el(tag, content, className) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    n.append(...[].concat(content));
    return n;
  }

  const DATE = { year: 'numeric', month: 'short', day: 'numeric' };
  const TIME = { hour: '2-digit', minute: '2-digit', timeZoneName: 'short' };

  // formatDate shows an instant in a time zone (the viewer's when none is
  // given): its date and time with the zone's short name, or the fields
  // asked for.
  function formatDate(iso, zone, fields = { ...DATE, ...TIME }) {
    const opts = { ...fields };
    if (zone) opts.timeZone = zone;
    try {
      return new Date(iso).toLocaleString(locale(), opts);
    } catch (err) { // a zone this browser does not know
      delete opts.timeZone;
      return new Date(iso).toLocaleString(locale(), opts);
    }
  }

  // zoneNote names the zone the deadline falls due in and, when the
  // viewer is elsewhere, the same instant in the viewer's time.
  function zoneNote(e) {
    const viewer = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const note = el('small', '', 'zone');
    note.title = t('zoneTitle', { zone: viewer });
    if (!e.timeZone) note.textContent = t('yourTime', { zone: viewer });
    else if (e.timeZone === viewer) note.textContent = t('yourZoneToo', { zone: e.timeZone });
    else note.textContent = t('yours', { zone: e.timeZone, time: formatDate(e.dueAt, viewer) });
    return note;
  }

  // fillOptions gives the filters' selects their options in the page's
  // language, keeping what is chosen.
  function fillOptions() {
    const fill = (select, entries) => {
      const keep = select.value;
      select.replaceChildren(...entries.map(([value, text]) => {
        const o = el('option', text);
        o.value = value;
        return o;
      }));
      select.value = keep;
    };
    fill($('filter-state'), [['', t('all')], ...Object.keys(CODES.states).map((c) => [c, code('states', c)])]);
    fill($('filter-rule'), [['', t('all')], ...Object.keys(CODES.rules).map((c) => [c, code('rules', c)])]);
    const sorts = [['', t('sortDefault')]];
    for (const path of Object.keys(SORTS)) {
      for (const dir of ['ASC', 'DESC']) {
        sorts.push([path + ':' + dir, t('sortOption', { col: sortName(path), dir: t(dir === 'ASC' ? 'ascending' : 'descending') })]);
      }
    }
    fill($('sort'), sorts);
  }

  // setLanguage says every word of the page in lang (en or de) and keeps
  // the choice for the next visit (the console shares it).
  function setLanguage(l) {
    lang = l === 'de' ? 'de' : 'en';
    document.documentElement.lang = lang;
    $('lang').value = lang;
    document.title = t('title') + ' · wasteflow';
    for (const n of document.querySelectorAll('[data-i18n]')) n.textContent = t(n.dataset.i18n);
    for (const n of document.querySelectorAll('[data-i18n-label]')) n.setAttribute('aria-label', t(n.dataset.i18nLabel));
    $('filter-party').placeholder = t('partyPlaceholder');
    fillOptions();
    markSort();
    renderSummary();
    if (lastEntries) renderRows(lastEntries);
    if (lastNow) renderAsOf(lastNow);
    if (total || lastEntries) renderPager();
    try { localStorage.setItem('wasteflow.lang', lang); } catch { /* storage off */ }
  }

  // loadLabels reads the server's words for codes (GET /labels.json), when
  // it has them; the page's own tables stand in otherwise.
  async function loadLabels() {
    try {
      const r = await fetch('/labels.json', { cache: 'no-store' });
      if (!r.ok) return;
      serverLabels = (await r.json()).lists || {};
      setLanguage(lang);
    } catch { /* the page's own words stand */ }
  }

  async function init() {
    let stored = '';
    try { stored = localStorage.getItem('wasteflow.lang') || ''; } catch { /* storage off */ }
    setLanguage(stored || ((navigator.language || '').toLowerCase().startsWith('de') ? 'de' : 'en'));
    $('lang').addEventListener('change', () => setLanguage($('lang').value));
    loadLabels();
    $('login-form').addEventListener('submit', login);
    $('logout').addEventListener('click', logout);
    $('filters').addEventListener('submit', (ev) => {
      ev.preventDefault();
      filters = { state: $('filter-state').value, rule: $('filter-rule').value, party: $('filter-party').value.trim() };
      pageStart = 0;
      run(() => Promise.all([loadTable(), loadSummary()]));
    });
    $('download').addEventListener('click', () => run(download));
    $('table').tHead.addEventListener('click', (ev) => {
      const b = ev.target.closest('button[data-sort]');
      if (!b) return;
      const same = sort !== DEFAULT_SORT && sort[0].path === b.dataset.sort && sort[0].direction === 'ASC';
      sort = [{ path: b.dataset.sort, direction: same ? 'DESC' : 'ASC' }];
      pageStart = 0;
      markSort();
      run(loadTable);
    });
    // The order on a phone, where the column headers are not shown.
    $('sort').addEventListener('change', () => {
      const [path, direction] = $('sort').value.split(':');
      sort = path ? [{ path, direction }] : DEFAULT_SORT;
      pageStart = 0;
      markSort();
      run(loadTable);
    });
    $('order-default').addEventListener('click', () => {
      sort = DEFAULT_SORT;
      pageStart = 0;
      markSort();
      run(loadTable);
    });
    window.addEventListener('hashchange', showDocument);
    $('document-close').addEventListener('click', () => $('document-view').close());
    // Closed by the button or Escape: the link may be followed again.
    $('document-view').addEventListener('close', () => {
      documentSeq++;
      if (documentInHash()) history.replaceState(null, '', location.pathname + location.search);
    });
    $('prev').addEventListener('click', () => { pageStart = Math.max(0, pageStart - PAGE_SIZE); run(loadTable); });
    $('next').addEventListener('click', () => { pageStart += PAGE_SIZE; run(loadTable); });
    markSort();
    try {
      config = await (await request('GET', '/ui/config.json')).json();
      const { providers } = await (await request('GET', API.providers)).json();
      // The app token belongs to some providers only: offer those.
      const mine = providers.filter((p) => p.environment === config.environment && (config.providers || []).includes(p.id));
      $('provider').replaceChildren(...mine.map((p) => {
        const o = el('option', `${p.name} (${p.id})`);
        o.value = p.id;
        return o;
      }));
      if (!mine.length) showMessage('login-error', t('noProvider', { env: config.environment }));
      else if (!config.appToken) showMessage('login-error', t('noAppToken'));
    } catch (e) {
      showMessage('login-error', t('noSettings', { msg: e.message }));
    }
  }

  init();
})();
