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
  const DEFAULT_ORDER = 'Overdue and due soon first, each by due date';
  const PAGE_SIZE = 50;
  const CLOSED = new Set(['MET', 'MET_LATE', 'LAPSED', 'CANCELLED']);
  const STATE_ORDER = ['OVERDUE', 'DUE_SOON', 'OPEN', 'SUSPENDED', 'MET_LATE', 'MET', 'LAPSED', 'CANCELLED'];
  const LABELS = { ANNEX_VII: 'Annex VII' };
  // A LAPSED deadline is no miss: its period ended as the law foresees.
  // What that meant, by rule, in words people read.
  const LAPSED_MEANING = {
    DECISION_DUE: 'tacit consent (the transit authority did not object in time)',
    CONSENT_VALIDITY: 'consent validity ended',
  };
  const LAPSED_OTHERWISE = 'period ended as foreseen';
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
    const resp = await fetch(path, {
      method, headers, cache: 'no-store', body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!resp.ok) throw await apiError(resp);
    return resp;
  }

  async function apiError(resp) {
    let message = '';
    try { message = (await resp.json()).message || ''; } catch { /* not JSON */ }
    const err = new Error(message || `The server answered HTTP ${resp.status}.`);
    err.status = resp.status;
    const retry = resp.headers.get('Retry-After');
    if (resp.status === 429 && retry) err.message += ` Try again in ${retry} s.`;
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
          if (e.status === 401 && refreshToken === spent) endSession('Your session has ended. Please log in again.');
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
    if (!refreshToken) throw new Error('Please log in.');
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
    const username = $('username').value.trim();
    const password = $('password').value;
    provider = $('provider').value;
    if (!provider || !username || !password) {
      showMessage('login-error', 'Choose a provider and enter your username and password.');
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
  }

  function logout() {
    const at = accessToken, rt = refreshToken;
    endSession('');
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
    const parts = [el('strong', 'All your deadlines: ')];
    const states = STATE_ORDER.filter((s) => counts[s]);
    states.forEach((s, i) => {
      if (i) parts.push(' · ');
      const label = s === 'LAPSED' ? 'lapsed (ended as foreseen)' : human(s).toLowerCase();
      parts.push(el('span', `${counts[s]} ${label}`, 'count-' + s.toLowerCase()));
    });
    if (!states.length) parts.push('none');
    $('summary').replaceChildren(...parts);
  }

  function renderRows(entries) {
    const tbody = $('table').tBodies[0];
    if (!entries.length) {
      const td = el('td', 'No deadlines match these filters.', 'empty');
      td.colSpan = 8;
      tbody.replaceChildren(el('tr', td));
      return;
    }
    tbody.replaceChildren(...entries.map((e) => {
      const tr = document.createElement('tr');
      tr.dataset.number = e.documentNumber;
      tr.dataset.state = e.state;
      const rule = el('td', human(e.rule));
      rule.title = e.rule;
      // The due time where it falls due (the acting party's place), and
      // the viewer's own time when that is another zone.
      // Date and time may go on two lines, so that the table fits narrower windows.
      const due = el('time', [el('span', formatDate(e.dueAt, e.timeZone, DATE) + ','), ' ', el('span', formatDate(e.dueAt, e.timeZone, TIME))]);
      due.dateTime = e.dueAt;
      due.dataset.zone = e.timeZone || '';
      const days = daysLeft(e);
      const state = el('td', el('span', human(e.state), 'badge badge-' + e.state.toLowerCase()), 'state');
      if (e.state === 'LAPSED') state.append(el('small', LAPSED_MEANING[e.rule] || LAPSED_OTHERWISE, 'meaning'));
      // The number opens the document (see showDocument).
      const link = el('a', e.documentNumber, 'doc-link');
      link.href = '#document=' + encodeURIComponent(e.documentId);
      link.dataset.documentId = e.documentId;
      link.title = 'Show document ' + e.documentNumber;
      tr.append(
        el('td', link, 'number'),
        el('td', human(e.kind)),
        rule,
        el('td', e.legalBasis, 'basis'),
        el('td', [e.party, el('small', human(e.partyRole))], 'party'),
        el('td', [due, zoneNote(e)], 'due'),
        state,
        daysCell(days),
      );
      return tr;
    }));
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
    const days = (k) => (k === 1 ? '1 day' : `${k} days`);
    const working = Number.isFinite(w) ? (Math.abs(w) === 1 ? '1 working day' : `${Math.abs(w)} working days`) + (w < 0 ? ' late' : ' left') : '';
    if (n < 0) return { text: `${days(-n)} late`, late: true, title: working };
    // OVERDUE with days still ahead: swept as of a later time (admin sweep -as-of).
    if (e.state === 'OVERDUE') return { text: '—' };
    if (n === 0) return { text: 'due today', title: working };
    return { text: `${days(n)} left`, title: working };
  }

  // renderAsOf says from when the days are counted: the provider's time,
  // which a sandbox's test clock may have moved ahead.
  function renderAsOf(now) {
    $('as-of').textContent = now ? ' · Days counted from ' + formatDate(now) + ', the provider\'s time' : '';
  }

  // suspendedLeft says a suspended deadline's remaining time in days, as the
  // CSV and the terminal report do ("31 days left (suspended)"; a part of a
  // day counts as a day). The API gives it as a duration ("2677981s"): the
  // due date minus the start of the suspension.
  function suspendedLeft(e) {
    const m = /^(-?\d+(?:\.\d+)?)s$/.exec(e.remaining || '');
    const secs = m ? Number(m[1]) : (Date.parse(e.dueAt) - Date.parse(e.suspendedSince)) / 1000;
    if (!Number.isFinite(secs)) return 'suspended';
    const n = Math.ceil(Math.abs(secs) / 86400);
    return `${n} ${n === 1 ? 'day' : 'days'} ${secs < 0 ? 'late' : 'left'} (suspended)`;
  }

  function daysCell(days) {
    const td = el('td', days.text, 'days' + (days.late ? ' late' : ''));
    if (days.title) td.title = days.title;
    return td;
  }

  function renderPager() {
    const last = Math.min(pageStart + PAGE_SIZE, total);
    $('page-info').textContent = total ? `${pageStart + 1}–${last} of ${total}` : '0 deadlines';
    $('prev').disabled = pageStart === 0;
    $('next').disabled = last >= total;
  }

  // markSort marks the sorted column and says the order above the table.
  function markSort() {
    const byDefault = sort === DEFAULT_SORT;
    let column = '';
    for (const th of $('table').tHead.rows[0].cells) {
      if (!byDefault && th.dataset.sort === sort[0].path) {
        th.setAttribute('aria-sort', sort[0].direction === 'ASC' ? 'ascending' : 'descending');
        column = th.textContent.trim();
      } else th.removeAttribute('aria-sort');
    }
    $('order').textContent = byDefault ? DEFAULT_ORDER
      : `Sorted by ${column.toLowerCase()}, ${sort[0].direction === 'ASC' ? 'ascending' : 'descending'}`;
    $('order-default').hidden = byDefault;
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
    $('document-title').textContent = 'Document ' + (link ? link.textContent : id);
    $('document-json').textContent = '';
    $('document-status').textContent = 'Loading…';
    if (!view.open) view.showModal();
    try {
      const data = await (await api('POST', path, { documentId: id })).json();
      if (seq !== documentSeq) return;
      $('document-status').textContent = `As ${operation} returns it:`;
      $('document-json').textContent = JSON.stringify(data, null, 2);
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

  function showMessage(id, text) {
    $(id).textContent = text;
    $(id).hidden = !text;
  }

  function el(tag, content, className) {
    const n = document.createElement(tag);
    if (className) n.className = className;
    n.append(...[].concat(content));
    return n;
  }

  function human(code) {
    if (!code) return '';
    return LABELS[code] || code.charAt(0) + code.slice(1).toLowerCase().replace(/_/g, ' ');
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
      return new Date(iso).toLocaleString(undefined, opts);
    } catch (err) { // a zone this browser does not know
      delete opts.timeZone;
      return new Date(iso).toLocaleString(undefined, opts);
    }
  }

  // zoneNote names the zone the deadline falls due in and, when the
  // viewer is elsewhere, the same instant in the viewer's time.
  function zoneNote(e) {
    const viewer = Intl.DateTimeFormat().resolvedOptions().timeZone;
    const note = el('small', '', 'zone');
    note.title = 'Falls due at the end of its last day where the party acts; your time zone is ' + viewer;
    if (!e.timeZone) note.textContent = 'your time (' + viewer + ')';
    else if (e.timeZone === viewer) note.textContent = e.timeZone + ' (your zone too)';
    else note.textContent = e.timeZone + ' · yours: ' + formatDate(e.dueAt, viewer);
    return note;
  }

  async function init() {
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
      if (!mine.length) showMessage('login-error', `No provider is set up for the ${config.environment} environment.`);
      else if (!config.appToken) showMessage('login-error', 'The server has no app token for this page (WASTEFLOW_UI_APP_TOKEN).');
    } catch (e) {
      showMessage('login-error', 'Cannot load the settings: ' + e.message);
    }
  }

  init();
})();
