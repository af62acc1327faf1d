// wasteflow console: the work queue, the document lists, a document with
// its content, parties, movements, deadlines, timeline and state diagram,
// and its follow-up intents as actions whose forms come from the OpenAPI
// description. It talks only to the public API of the server that serves
// it, as any client would: SetByIntent with the document as read.
'use strict';
(() => {
  const CORE = '/svc.core.v1.api.';
  const DIWASS = '/svc.bxa.diwass.v1.api.';
  const API = {
    login: CORE + 'AuthApi/IssueRefreshToken',
    access: CORE + 'AuthApi/RequestAccess',
    revoke: CORE + 'AuthApi/RevokeRefreshToken',
    providers: CORE + 'DiscoveryApi/ListProvider',
  };
  const KINDS = ['NOTIFICATION', 'ANNEX_VII', 'MOVEMENT'];
  const CONTAINERS = { NOTIFICATION: 'notification', ANNEX_VII: 'annex7', MOVEMENT: 'movement' };
  const PAGE = 25;
  const $ = (id) => document.getElementById(id);

  // --- Languages ------------------------------------------------------------
  // English labels of fields are their names in words; German ones come
  // from this table (states, intents, rules, the interface and the fields
  // people read most), the English words otherwise.
  const TEXT = {
    en: {
      app: 'wasteflow console', queue: 'Work queue', documents: 'Documents', search: 'Find', searchLabel: 'Document number',
      language: 'Language', logout: 'Log out', login: 'Log in', loginButton: 'Log in', provider: 'Provider', username: 'Username',
      password: 'Password', kind: 'Kind', state: 'State', any: 'any', sortBy: 'Sort', sortUpdated: 'last changed first',
      sortDeadline: 'nearest deadline first', sortNumber: 'by number', sortCreated: 'newest first', apply: 'Apply', number: 'Number',
      nextDeadline: 'Your next deadline', yourIntents: 'You can', updated: 'Changed', prev: 'Previous', next: 'Next', version: 'Version',
      actions: 'Actions', staleText: 'Someone changed this document since you opened it.', reload: 'Reload the document', submit: 'Submit',
      cancel: 'Cancel', content: 'Content', movements: 'Movements', timeline: 'Timeline', parties: 'Parties', deadlines: 'Deadlines',
      diagram: 'State diagram', queueTitle: 'Your work queue: documents on which you can act now, nearest deadline first',
      documentsTitle: 'Documents your organisation is a party to', pageInfo: '{from}–{to} of {total}', none: 'Nothing here.',
      noActions: 'No action is open to you in this state.', print: 'Print (PDF)', exportRegister: 'Export the register', from: 'From', to: 'To', format: 'Format', export: 'Export',
      exportProgress: 'Export {state}: {done} of {total} documents', exportDone: 'Saved {file}: {rows} rows.', printed: 'Saved {file}. Its QR code leads an inspector, without login, to the current document until {until}:', loggedInAs: '{user} · {org}', chainOk: 'Audit chain verified; head',
      chainBroken: 'Audit chain broken at row {row}: {reason}', system: 'the scheduler', you: 'you', done: 'Done: {intent}.',
      created: 'Created {number}.', notFound: 'No document {number} that you can see.', add: 'Add', remove: 'Remove',
      required: 'required', fixErrors: 'Please correct the marked fields.', workingDays: 'left', proposedChange: 'Proposed change',
      inForce: 'In force', proposed: 'Proposed', field: 'Field', rule: 'Rule', party: 'Party', due: 'Due', remaining: 'Remaining',
      used: 'used', left: 'left', shipments: 'Shipments', quantity: 'Quantity', of: 'of', shippedOn: 'Shipped on',
      movementsSentence: 'Shipments: {made} made, {left} left of {total}. Quantity: {shipped} shipped, {remainder} left.', sessionEnded: 'Your session has ended. Please log in again.',
      under: 'Under', new: 'New', workingDaysLeft: '{n} working days left', workingDaysLate: '{n} working days late', calendarDays: '{n} calendar days', suspendedWith: 'suspended with {n} days left', badLogin: 'Log-in failed: {msg}', empty: '—', yes: 'yes', no: 'no', chooseOne: 'choose…', dateFormat: 'YYYY-MM-DD',
      daysLate: '{n} days late', dueToday: 'due today', // the provider's count (GetDocument's daysLeft), never the browser's
    },
    de: {
      app: 'wasteflow-Konsole', queue: 'Arbeitsvorrat', documents: 'Dokumente', search: 'Suchen', searchLabel: 'Dokumentnummer',
      language: 'Sprache', logout: 'Abmelden', login: 'Anmelden', loginButton: 'Anmelden', provider: 'Anbieter', username: 'Benutzername',
      password: 'Passwort', kind: 'Art', state: 'Status', any: 'alle', sortBy: 'Sortierung', sortUpdated: 'zuletzt geändert zuerst',
      sortDeadline: 'nächste Frist zuerst', sortNumber: 'nach Nummer', sortCreated: 'neueste zuerst', apply: 'Anwenden', number: 'Nummer',
      nextDeadline: 'Ihre nächste Frist', yourIntents: 'Sie können', updated: 'Geändert', prev: 'Zurück', next: 'Weiter', version: 'Version',
      actions: 'Aktionen', staleText: 'Jemand hat dieses Dokument geändert, seit Sie es geöffnet haben.', reload: 'Dokument neu laden',
      submit: 'Absenden', cancel: 'Abbrechen', content: 'Inhalt', movements: 'Verbringungen', timeline: 'Verlauf', parties: 'Beteiligte',
      deadlines: 'Fristen', diagram: 'Zustandsdiagramm', queueTitle: 'Ihr Arbeitsvorrat: Dokumente, bei denen Sie jetzt handeln können, nächste Frist zuerst',
      documentsTitle: 'Dokumente, an denen Ihre Organisation beteiligt ist', pageInfo: '{from}–{to} von {total}', none: 'Keine Einträge.',
      noActions: 'In diesem Status steht Ihnen keine Aktion offen.', print: 'Drucken (PDF)', exportRegister: 'Register exportieren', from: 'Von', to: 'Bis', format: 'Format', export: 'Exportieren',
      exportProgress: 'Export {state}: {done} von {total} Dokumenten', exportDone: '{file} gespeichert: {rows} Zeilen.', printed: '{file} gespeichert. Sein QR-Code führt Kontrolleure ohne Anmeldung bis {until} zum aktuellen Dokument:', loggedInAs: '{user} · {org}', chainOk: 'Prüfkette bestätigt; Kopf',
      chainBroken: 'Prüfkette bei Zeile {row} unterbrochen: {reason}', system: 'der Zeitplaner', you: 'Sie', done: 'Erledigt: {intent}.',
      created: '{number} angelegt.', notFound: 'Kein für Sie sichtbares Dokument {number}.', add: 'Hinzufügen', remove: 'Entfernen',
      required: 'Pflichtfeld', fixErrors: 'Bitte korrigieren Sie die markierten Felder.', workingDays: 'verbleibend', proposedChange: 'Beantragte Änderung',
      inForce: 'Geltend', proposed: 'Beantragt', field: 'Feld', rule: 'Frist', party: 'Beteiligter', due: 'Fällig', remaining: 'Verbleibend',
      used: 'genutzt', left: 'verbleibend', shipments: 'Verbringungen', quantity: 'Menge', of: 'von', shippedOn: 'Versandt am',
      movementsSentence: 'Verbringungen: {made} durchgeführt, {left} von {total} verbleibend. Menge: {shipped} verbracht, {remainder} verbleibend.', sessionEnded: 'Ihre Sitzung ist beendet. Bitte melden Sie sich erneut an.',
      under: 'Zu', new: 'Neu', workingDaysLeft: 'noch {n} Arbeitstage', workingDaysLate: '{n} Arbeitstage überfällig', calendarDays: '{n} Kalendertage', suspendedWith: 'ausgesetzt, {n} Tage verbleibend', badLogin: 'Anmeldung fehlgeschlagen: {msg}', empty: '—', yes: 'ja', no: 'nein', chooseOne: 'bitte wählen…', dateFormat: 'JJJJ-MM-TT',
      daysLate: '{n} Tage überfällig', dueToday: 'heute fällig', // the provider's count (GetDocument's daysLeft), never the browser's
    },
  };
  const DE = {
    kinds: { NOTIFICATION: 'Notifizierung', ANNEX_VII: 'Anhang-VII-Dokument', MOVEMENT: 'Begleitformular' },
    states: {
      DRAFT: 'Entwurf', SUBMITTED: 'Eingereicht', ACKNOWLEDGED: 'Eingangsbestätigt', INFORMATION_REQUESTED: 'Informationen angefordert',
      CONSENTED: 'Zugestimmt', CHANGE_REQUESTED: 'Änderung beantragt', OBJECTED: 'Einwand erhoben', EXPIRED: 'Zustimmung abgelaufen',
      CONSENT_CANCELLED: 'Zustimmung widerrufen', CLOSED: 'Abgeschlossen', WITHDRAWN: 'Zurückgezogen', ANNOUNCED: 'Angekündigt',
      IN_TRANSIT: 'In Beförderung', RECEIVED_BY_CONSIGNEE: 'Beim Empfänger eingegangen', RECEIVED_BY_FACILITY: 'In der Anlage eingegangen',
      COMPLETED: 'Verwertung/Beseitigung abgeschlossen', TAKE_BACK_INITIATED: 'Rücknahme eingeleitet', TAKEN_BACK: 'Zurückgenommen',
      REJECTED: 'Zurückgewiesen', TAKE_BACK_ORDERED: 'Rücknahme angeordnet',
      OPEN: 'offen', DUE_SOON: 'bald fällig', OVERDUE: 'überfällig', MET: 'eingehalten', MET_LATE: 'verspätet eingehalten',
      LAPSED: 'abgelaufen', SUSPENDED: 'ausgesetzt', CANCELLED: 'entfallen',
    },
    intents: {
      SUBMISSION: 'Einreichen', CORRECTION: 'Berichtigen', ACKNOWLEDGEMENT: 'Eingang bestätigen', REQUEST_INFORMATION: 'Informationen anfordern',
      REPLY_TO_REQUEST_INFORMATION: 'Informationen nachreichen', DECISION: 'Entscheiden', REQUEST_FOR_CHANGE_AFTER_CONSENT: 'Änderung nach Zustimmung beantragen',
      REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT: 'Änderungsantrag beantworten', NOTIFICATION_SIGNAL: 'Mitteilung zur Zustimmung',
      CREATE_MOVEMENT: 'Verbringung anlegen', FACILITY_COMPLETION_ARTICLE15: 'Abschluss nach Art. 15 bescheinigen', WITHDRAWAL: 'Zurückziehen',
      CARRIER_TRANSFER: 'Beförderung übernehmen', CONSIGNEE_CERTIFICATE: 'Eingang beim Empfänger bescheinigen', FACILITY_CERTIFICATE: 'Eingang in der Anlage bescheinigen',
      CERTIFICATE_OF_COMPLETION: 'Abschluss bescheinigen', TAKE_BACK: 'Rücknahme einleiten', MOVEMENT_TEMPLATE: 'Verbringungsdaten ändern',
      CARRIER_TRANSPORT: 'Abfälle übernehmen (Beförderer)', CONSIGNEE_RECEPTION: 'Eingang bescheinigen (Empfänger)', FACILITY_RECEPTION: 'Eingang bescheinigen (Anlage)',
      FACILITY_COMPLETION: 'Verwertung/Beseitigung bescheinigen', MOVEMENT_SIGNAL: 'Mitteilung zur Verbringung', MOVEMENT_TAKE_BACK: 'Rücknahme anordnen',
      CREATE: 'Anlegen', TACIT_CONSENT: 'Stillschweigende Zustimmung', CONSENT_VALIDITY_EXPIRY: 'Ablauf der Zustimmung', TAKE_BACK_COMPLETED: 'Rücknahme abgeschlossen',
    },
    rules: {
      ACKNOWLEDGEMENT_DUE: 'Eingangsbestätigung', DECISION_DUE: 'Entscheidung', INFORMATION_REPLY_DUE: 'Antwort auf Informationsanforderung',
      CONSENT_VALIDITY: 'Geltungsdauer der Zustimmung', RECEIPT_CERTIFICATE_DUE: 'Eingangsbescheinigung', COMPLETION_CERTIFICATE_DUE: 'Abschlussbescheinigung',
      TAKE_BACK_DUE: 'Rücknahme', CHANGE_REPLY_DUE: 'Antwort auf Änderungsantrag', PRIOR_NOTICE: 'Vorabmitteilung',
    },
    fields: {
      notification: 'Notifizierung', notifier: 'Notifizierende Person', consignee: 'Empfänger', facility: 'Anlage', producers: 'Erzeuger',
      carriers: 'Beförderer', competentAuthorities: 'Zuständige Behörden', dispatch: 'Versandbehörde', destination: 'Empfangsbehörde',
      transit: 'Durchfuhrbehörden', wasteClassifications: 'Abfalleinstufung', wasteDescription: 'Abfallbezeichnung', list: 'Liste', code: 'Code',
      recoveryDisposalCodes: 'Verwertungs-/Beseitigungsverfahren', totalQuantity: 'Gesamtmenge', numberOfShipments: 'Anzahl der Verbringungen',
      shipmentPeriod: 'Verbringungszeitraum', firstDeparture: 'Erster Versand', lastDeparture: 'Letzter Versand', packagingTypes: 'Verpackungsart',
      route: 'Route', transitCountries: 'Durchfuhrstaaten', entryExitPoints: 'Ein- und Ausgangsstellen', meansOfTransport: 'Beförderungsmittel',
      organisationId: 'Organisation', preConsented: 'Vorab zugestimmt', tonnes: 'Tonnen', cubicMetres: 'Kubikmeter', units: 'Ganze', nanos: 'Nanos',
      decisions: 'Entscheidungen', acknowledgements: 'Eingangsbestätigungen', informationRequests: 'Informationsanforderungen', changeRequests: 'Änderungsanträge',
      signals: 'Mitteilungen', consentConditions: 'Auflagen', consentValidUntil: 'Zustimmung gültig bis', corrections: 'Berichtigungen',
      type: 'Art', conditions: 'Auflagen', grounds: 'Begründung', validUntil: 'Gültig bis', extendsShipmentPeriod: 'Verlängert den Verbringungszeitraum',
      questions: 'Fragen', answers: 'Antworten', complete: 'Vollständig', reason: 'Grund', remarks: 'Bemerkungen', result: 'Ergebnis',
      proposed: 'Beantragt', changes: 'Änderungen', authority: 'Behörde', role: 'Rolle', at: 'Zeitpunkt', tacit: 'Stillschweigend',
      movementTemplate: 'Verbringungsdaten', actualDateOfShipment: 'Tatsächliches Versanddatum', actualQuantity: 'Tatsächliche Menge',
      sequenceNumber: 'Laufende Nummer', takenOverOn: 'Übernommen am', vehicleId: 'Kennzeichen', receivedOn: 'Eingegangen am', quantity: 'Menge',
      rejected: 'Zurückgewiesen', completedOn: 'Abgeschlossen am', operationCode: 'Verfahren', dueOn: 'Fällig am', carrierOrganisationId: 'Beförderer',
      arranger: 'Veranlasser', usualDescription: 'Übliche Bezeichnung', recoveryCode: 'Verwertungsverfahren', transferDate: 'Übergabedatum',
      legs: 'Beförderungsabschnitte', receptions: 'Eingänge', completion: 'Abschluss', takeBackOrder: 'Rücknahmeanordnung',
      certificates: 'Bescheinigungen', carrierTransfers: 'Übergaben an Beförderer', takeBack: 'Rücknahme', returnState: 'Status danach',
      replies: 'Antworten', changedFields: 'Geänderte Felder', createdAt: 'Angelegt', updatedAt: 'Geändert', withdrawn: 'Zurückgezogen', questionsAnswered: 'Beantwortet',
    },
    roles: {
      NOTIFIER: 'Notifizierende Person', PRODUCER: 'Erzeuger', CONSIGNEE: 'Empfänger', FACILITY: 'Anlage', CARRIER: 'Beförderer', ARRANGER: 'Veranlasser',
      AUTHORITY_DISPATCH: 'Versandbehörde', AUTHORITY_DESTINATION: 'Empfangsbehörde', AUTHORITY_TRANSIT: 'Durchfuhrbehörde',
    },
  };
  // Values of enumerations people read (others stay as sent: codes of
  // official lists such as EU_LIST_OF_WASTE or R4).
  const VALUES = {
    CONSENT: ['Consent', 'Zustimmung'], CONSENT_WITH_CONDITIONS: ['Consent with conditions', 'Zustimmung mit Auflagen'], OBJECTION: ['Objection', 'Einwand'],
    ACCEPTED: ['Accepted', 'Angenommen'], ACCEPTED_WITH_CONDITIONS: ['Accepted with conditions', 'Angenommen mit Auflagen'],
    CANCELLATION_OF_CONSENT: ['Cancellation of consent', 'Widerruf der Zustimmung'], CLOSURE: ['Closure', 'Abschluss'], REVALIDATION: ['Revalidation', 'Verlängerung'],
    CONFIRM: ['Confirm', 'Bestätigen'], REJECT: ['Reject', 'Zurückweisen'], REQUEST_CORRECTION: ['Request a correction', 'Berichtigung verlangen'],
    ROAD: ['Road', 'Straße'], RAIL: ['Rail', 'Schiene'], SEA: ['Sea', 'See'], AIR: ['Air', 'Luft'], INLAND_WATERWAYS: ['Inland waterways', 'Binnenwasserstraße'],
  };
  const valueLabel = (v) => (VALUES[v] ? VALUES[v][lang === 'de' ? 1 : 0] : null);
  let lang = 'en';
  function t(key, vars) {
    let s = (TEXT[lang] && TEXT[lang][key]) || TEXT.en[key] || key;
    for (const [k, v] of Object.entries(vars || {})) s = s.replace('{' + k + '}', v);
    return s;
  }
  function words(name) { // camelCase or UPPER_SNAKE in words
    if (/^[A-Z0-9_]+$/.test(name)) return name.charAt(0) + name.slice(1).toLowerCase().replace(/_/g, ' ');
    const w = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
    return w.charAt(0).toUpperCase() + w.slice(1);
  }
  const from = (table, key) => (lang === 'de' && DE[table][key]) || words(key);
  const fieldLabel = (k) => from('fields', k);
  const stateLabel = (s) => from('states', s);
  const intentLabel = (s) => from('intents', s);
  const ruleLabel = (s) => from('rules', s);
  const kindLabel = (s) => (lang === 'de' ? DE.kinds[s] : { NOTIFICATION: 'Notification', ANNEX_VII: 'Annex VII document', MOVEMENT: 'Movement document' }[s]) || words(s);
  const roleLabel = (s) => from('roles', s);
  function translatePage() {
    document.documentElement.lang = lang;
    document.querySelectorAll('[data-i18n]').forEach((el) => { el.textContent = t(el.dataset.i18n); });
    $('lang').value = lang;
  }

  // --- Session ---------------------------------------------------------------
  // Tokens live in memory only. RequestAccess rotates the refresh token:
  // one refresh at a time, shared by every caller (reuse of a consumed
  // refresh token would end the session).
  let config = { appToken: '', providers: [] };
  let provider = '';
  let refreshToken = '';
  let accessToken = '';
  let accessValidUntil = 0;
  let refreshing = null;
  let me = { user: '', org: '', kind: '' };

  function claims(token) {
    try { return JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))) || {}; } catch { return {}; }
  }
  // The requests of a session end with it: a call still under way when the
  // person logs out (or the session expires) is aborted, so no answer of
  // the old session (a 401 of its revoked token) lands on the page.
  let session = new AbortController();
  async function call(path, body, token) {
    const headers = { 'Content-Type': 'application/json' };
    if (provider) headers.provider_id = provider;
    if (token) headers.Authorization = 'Bearer ' + token;
    const signal = session.signal;
    const ended = () => {
      const e = new Error(t('sessionEnded'));
      e.aborted = true; // said by whoever ended the session, not again
      return e;
    };
    let resp;
    try {
      resp = await fetch(path, { method: 'POST', headers, cache: 'no-store', body: JSON.stringify(body === undefined ? {} : body), signal });
    } catch (e) {
      throw e.name === 'AbortError' ? ended() : e;
    }
    let data = null;
    try { data = await resp.json(); } catch { data = null; }
    // aborted while its body was read: no answer, not an empty one
    if (signal.aborted) throw ended();
    return { status: resp.status, data: data || {}, headers: resp.headers };
  }
  function fail(r) {
    const e = new Error((r.data && r.data.message) || 'HTTP ' + r.status);
    e.status = r.status;
    e.data = r.data;
    return e;
  }
  function useTokens(tk) {
    refreshToken = tk.refreshToken;
    accessToken = tk.accessToken;
    const c = claims(accessToken);
    const life = c.exp > c.iat ? (c.exp - c.iat) * 1000 : 60 * 1000;
    accessValidUntil = Date.now() + life - Math.min(60 * 1000, life / 5);
    me = { user: me.user, org: c.org || '', kind: c.okd || '' };
  }
  function refreshAccess() {
    if (!refreshing) {
      const spent = refreshToken;
      refreshing = call(API.access, {}, spent).then((r) => {
        if (r.status !== 200) {
          if (refreshToken === spent) endSession(t('sessionEnded'));
          throw fail(r);
        }
        if (refreshToken === spent) useTokens(r.data);
      }).finally(() => { refreshing = null; });
    }
    return refreshing;
  }
  // api calls an operation with a fresh access token; the answer whatever
  // its status (callers decide what an error means to them).
  async function api(path, body) {
    if (!refreshToken) throw new Error(t('sessionEnded'));
    if (Date.now() > accessValidUntil) await refreshAccess();
    let r = await call(path, body, accessToken);
    if (r.status === 401 && refreshToken) {
      await refreshAccess();
      r = await call(path, body, accessToken);
    }
    return r;
  }
  async function apiOK(path, body) {
    const r = await api(path, body);
    if (r.status !== 200) throw fail(r);
    return r.data;
  }
  const face = () => DIWASS + (me.kind === 'authority' ? 'AuthorityDocumentApi/' : 'CompanyDocumentApi/');

  async function login(ev) {
    ev.preventDefault();
    $('login-error').hidden = true;
    provider = $('provider').value;
    const username = $('username').value.trim();
    const r = await call(API.login, { usernameCredentials: { username, password: $('password').value }, appToken: config.appToken });
    if (r.status !== 200) {
      $('login-error').textContent = t('badLogin', { msg: (r.data && r.data.message) || r.status });
      $('login-error').hidden = false;
      return;
    }
    refreshToken = r.data.refreshToken;
    me.user = username;
    $('password').value = '';
    await refreshAccess();
    showSession();
    if (!location.hash || location.hash === '#/login') location.hash = '#/queue'; else route();
  }
  async function logout() {
    const at = accessToken, rt = refreshToken;
    endSession('');
    // End the session on the server too: RevokeRefreshToken names it by its
    // refresh token and takes the access token (no scope needed).
    if (at && rt) await call(API.revoke, { refreshToken: rt }, at).catch(() => {});
  }
  function endSession(message) {
    session.abort();
    session = new AbortController();
    docSeq++; // a document still loading is not shown to the next person
    refreshToken = accessToken = '';
    me = { user: '', org: '', kind: '' };
    // nothing of this session stays on the page for the next person
    current = null;
    closeAction();
    $('list').tBodies[0].replaceChildren();
    for (const id of ['doc-parent', 'content', 'parties', 'movements', 'deadlines', 'timeline', 'chain', 'intents', 'doc-number', 'page-info']) $(id).replaceChildren();
    history.replaceState(null, '', '#/queue');
    notice('');
    showSession();
    show('login-view');
    if (message) error(message);
  }
  function showSession() {
    const on = !!refreshToken;
    $('nav').hidden = !on;
    $('logout').hidden = !on;
    $('who').hidden = !on;
    $('who').textContent = on ? t('loggedInAs', { user: me.user, org: me.org }) : '';
  }

  // --- Views -----------------------------------------------------------------
  function show(id) {
    for (const v of ['login-view', 'list-view', 'doc', 'new-view']) $(v).hidden = v !== id;
  }
  function error(msg) { $('error').textContent = msg; $('error').hidden = !msg; }
  function report(e) { if (!e.aborted) error(e.message); } // a failed action, unless its session ended
  function notice(msg) { $('notice').textContent = msg; $('notice').hidden = !msg; }
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') e.textContent = v; else if (k === 'class') e.className = v; else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  const fmtDate = (s) => (s ? new Date(s).toLocaleDateString(lang === 'de' ? 'de-DE' : 'en-GB', { year: 'numeric', month: 'short', day: 'numeric' }) : t('empty'));
  const fmtTime = (s) => (s ? new Date(s).toLocaleString(lang === 'de' ? 'de-DE' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' }) : t('empty'));
  const badge = (state, label) => el('span', { class: 'badge ' + state, text: label || stateLabel(state) });

  async function route() {
    error('');
    const hash = location.hash || '#/queue';
    if (!refreshToken) { show('login-view'); $('username').focus(); return; }
    document.querySelectorAll('#nav a').forEach((a) => a.toggleAttribute('aria-current', hash.startsWith(a.getAttribute('href'))));
    try {
      if (hash.startsWith('#/doc/')) await showDocument(decodeURIComponent(hash.slice(6)));
      else if (hash.startsWith('#/new/')) await showNew(decodeURIComponent(hash.slice(6)));
      else await showList(hash.startsWith('#/documents') ? 'documents' : 'queue');
    } catch (e) {
      if (e.status !== 401 && !e.aborted) error(e.message);
    }
  }

  // --- Lists -----------------------------------------------------------------
  let listMode = 'queue';
  let pageStart = 0;
  const machines = {};
  async function machine(kind) {
    if (!machines[kind]) machines[kind] = await (await fetch('/workflows/' + kind.toLowerCase() + '.json')).json();
    return machines[kind];
  }
  async function fillStates() {
    const kind = $('filter-kind').value;
    const keep = $('filter-state').value;
    const states = new Set();
    for (const k of kind ? [kind] : KINDS) (await machine(k)).states.forEach((s) => states.add(s));
    $('filter-state').replaceChildren(el('option', { value: '', text: t('any') }), ...[...states].map((s) => el('option', { value: s, text: stateLabel(s) })));
    if (states.has(keep)) $('filter-state').value = keep;
  }
  async function showList(mode) {
    if (mode !== listMode) pageStart = 0;
    listMode = mode;
    show('list-view');
    $('list-title').textContent = t(mode === 'queue' ? 'queueTitle' : 'documentsTitle');
    $('filter-kind').replaceChildren(el('option', { value: '', text: t('any') }), ...KINDS.map((k) => el('option', { value: k, text: kindLabel(k) })));
    $('filter-kind').value = filters.kind;
    await fillStates();
    $('filter-state').value = filters.state;
    $('sort').value = filters.sort || (mode === 'queue' ? 'next_deadline.due_at:ASC' : 'updated_at:DESC');
    $('new-buttons').replaceChildren(...(me.kind === 'company' ? Object.keys(CREATES).map((k) =>
      el('a', { href: '#/new/' + k, class: 'button', 'data-new': k, text: t('new') + ': ' + kindLabel(k) })) : []));
    const filter = [];
    if (filters.kind) filter.push({ path: 'kind', op: 'EQUAL', operands: [{ s: filters.kind }] });
    if (filters.state) filter.push({ path: 'state', op: 'EQUAL', operands: [{ s: filters.state }] });
    const [path, direction] = $('sort').value.split(':');
    const data = await apiOK(face() + 'ListDocuments', { actionable: mode === 'queue', qpar: { filter, sort: [{ path, direction }, { path: 'number', direction: 'ASC' }], pageStart, pageSize: PAGE } });
    const rows = data.entries.map((e) => el('tr', { 'data-id': e.documentId, 'data-number': e.number, 'data-state': e.state },
      el('td', {}, el('a', { href: '#/doc/' + encodeURIComponent(e.documentId), text: e.number })),
      el('td', { text: kindLabel(e.kind) }),
      el('td', {}, badge(e.state)),
      el('td', {}, e.nextDeadline ? [badge(e.nextDeadline.state), ' ', ruleLabel(e.nextDeadline.rule), ' · ', fmtDate(e.nextDeadline.dueAt)] : t('empty')),
      el('td', {}, e.followUpIntents.map((f) => el('span', { class: 'chip', text: intentLabel(f.intent) }))),
      el('td', { text: fmtDate(e.updatedAt) })));
    $('list').tBodies[0].replaceChildren(...(rows.length ? rows : [el('tr', {}, el('td', { colspan: 6, class: 'empty', text: t('none') }))]));
    const total = Number(data.total);
    $('page-info').textContent = total ? t('pageInfo', { from: pageStart + 1, to: pageStart + data.entries.length, total }) : '';
    $('prev').disabled = pageStart === 0;
    $('next').disabled = pageStart + PAGE >= total;
  }
  const filters = { kind: '', state: '', sort: '' };

  async function search(ev) {
    ev.preventDefault();
    const number = $('search-number').value.trim();
    if (!number) return;
    const data = await apiOK(face() + 'ListDocuments', { qpar: { filter: [{ path: 'number', op: 'EQUAL', operands: [{ s: number }] }], pageSize: 2 } });
    if (data.entries.length === 1) location.hash = '#/doc/' + encodeURIComponent(data.entries[0].documentId);
    else error(t('notFound', { number }));
  }

  // --- A document ------------------------------------------------------------
  let current = null; // { id, kind, container, doc, intents, raw }
  let docSeq = 0; // a document opened while another loads wins
  async function showDocument(id) {
    show('doc');
    const seq = ++docSeq;
    const r = await api(face() + 'GetDocument', { documentId: id });
    if (seq !== docSeq) return;
    if (r.status !== 200) {
      $('doc').hidden = true;
      throw fail(r);
    }
    const container = Object.keys(r.data.document).find((k) => r.data.document[k]);
    const doc = r.data.document[container];
    current = { id, kind: doc.kind, container, doc, intents: r.data.followUpIntents || [] };
    $('action-host').append($('action'));
    closeAction();
    const m = await machine(doc.kind);
    if (seq !== docSeq) return;
    $('doc-kind').textContent = kindLabel(doc.kind);
    $('doc-number').textContent = doc.number;
    $('doc-state').textContent = stateLabel(doc.state);
    $('doc-state').className = 'badge ' + doc.state;
    $('doc-version').textContent = doc.version;
    $('print-result').hidden = true;
    $('doc-roles').textContent = '';
    $('intents').replaceChildren(el('span', { id: 'intents-label', class: 'label', text: t('actions') }),
      ...(current.intents.length ? current.intents.map((f) => el('button', { type: 'button', 'data-intent': f.intent, text: intentLabel(f.intent) + (f.dueAt ? ' · ' + t('due') + ' ' + fmtDate(f.dueAt) : '') }))
        : [el('span', { class: 'empty', text: t('noActions') })]));
    $('intents').querySelectorAll('button').forEach((b) => b.addEventListener('click', () => openAction(b.dataset.intent)));
    // A movement belongs to a notification: its parties are the
    // notification's (and the movement's own carriers).
    let parent = null;
    if (doc.notificationId) {
      const pr = await api(face() + 'GetDocument', { documentId: doc.notificationId });
      if (seq !== docSeq) return;
      if (pr.status === 200) parent = pr.data.document.notification;
    }
    $('doc-parent').replaceChildren(...(parent ? [t('under') + ' ', el('a', { href: '#/doc/' + encodeURIComponent(parent.id), text: kindLabel(parent.kind) + ' ' + parent.number })] : []));
    renderContent(doc, m);
    renderParties(doc, parent);
    renderMovements(doc);
    renderDeadlines(doc.deadlines || []);
    drawDiagram(m, doc.state);
    await renderTimeline(id);
  }

  // The content: the document's own fields, without the blocks that only
  // carry an intent's input (those are the forms).
  const META = new Set(['id', 'number', 'kind', 'state', 'version', 'deadlines', 'movements', 'createdAt', 'updatedAt', 'proposedTerms', 'notificationId']);
  const PRIMARY = new Set(['SUBMISSION', 'CORRECTION', 'MOVEMENT_TEMPLATE']);
  function renderContent(doc, m) {
    const inputs = new Set(m.intents.filter((i) => i.block && !PRIMARY.has(i.name)).map((i) => i.block));
    const out = [];
    if (doc.proposedTerms && doc.notification) out.push(changeTable(doc.notification, doc.proposedTerms));
    for (const [k, v] of Object.entries(doc)) {
      if (META.has(k) || inputs.has(k) || isEmpty(v)) continue;
      out.push(el('details', { class: 'section', open: true, 'data-section': k }, el('summary', { text: fieldLabel(k) }), value(v)));
    }
    $('content').replaceChildren(...out);
  }
  function isEmpty(v) {
    if (v === null || v === undefined || v === '' || v === false) return true;
    if (Array.isArray(v)) return v.length === 0;
    if (typeof v === 'object') return Object.values(v).every(isEmpty);
    return false;
  }
  function quantity(v) {
    if (!v || typeof v !== 'object') return null;
    // a decimal: units and nanos (zero ones absent, int64 as strings), in
    // the reader's locale
    const d = (x) => (Number(x.units || 0) + Number(x.nanos || 0) / 1e9).toLocaleString(lang === 'de' ? 'de-DE' : 'en-GB', { maximumFractionDigits: 9 });
    if ('tonnes' in v || 'cubicMetres' in v) {
      const parts = [];
      if (v.tonnes) parts.push(d(v.tonnes) + '\u00a0t');
      if (v.cubicMetres) parts.push(d(v.cubicMetres) + '\u00a0m³');
      return parts.join(', ') || t('empty');
    }
    return null;
  }
  function value(v) {
    if (v === null || v === undefined || v === '') return el('span', { class: 'empty', text: t('empty') });
    if (typeof v === 'boolean') return document.createTextNode(v ? t('yes') : t('no'));
    if (typeof v !== 'object') {
      const s = String(v);
      if (/^\d{4}-\d{2}-\d{2}T/.test(s)) return document.createTextNode(fmtTime(s));
      if (/^[A-Z][A-Z0-9_]+$/.test(s)) { // a state, intent, role, rule or value: in words
        if (valueLabel(s)) return document.createTextNode(valueLabel(s));
        for (const [table, label] of [['states', stateLabel], ['intents', intentLabel], ['roles', roleLabel], ['rules', ruleLabel]]) {
          if (DE[table][s]) return document.createTextNode(label(s));
        }
      }
      return document.createTextNode(s);
    }
    const q = quantity(v);
    if (q) return document.createTextNode(q);
    if (Array.isArray(v)) {
      if (v.every((x) => typeof x !== 'object' || x === null)) return document.createTextNode(v.join(', '));
      if (v.every((x) => x && Object.keys(x).length === 1 && 'organisationId' in x)) return document.createTextNode(v.map((x) => x.organisationId).join(', '));
      return el('ol', {}, v.map((x) => el('li', {}, value(x))));
    }
    if (Object.keys(v).length === 1 && 'organisationId' in v) return document.createTextNode(v.organisationId);
    const dl = el('dl', { class: 'kv' });
    for (const [k, x] of Object.entries(v)) {
      if (isEmpty(x)) continue;
      dl.append(el('dt', { text: fieldLabel(k) }), el('dd', {}, value(x)));
    }
    return dl;
  }
  // A change request's proposed terms beside the terms in force, the
  // fields that differ marked.
  function flatten(v, prefix, out) {
    if (v && typeof v === 'object' && !Array.isArray(v) && !quantity(v)) {
      for (const [k, x] of Object.entries(v)) flatten(x, prefix ? prefix + '.' + k : k, out);
    } else out[prefix] = v;
    return out;
  }
  function changeTable(inForce, proposed) {
    const a = flatten(inForce, '', {});
    const b = flatten(proposed, '', {});
    const rows = [];
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (JSON.stringify(a[k]) === JSON.stringify(b[k])) continue;
      const label = k.split('.').map(fieldLabel).join(' › ');
      rows.push(el('tr', { 'data-field': k }, el('th', { scope: 'row', text: label }), el('td', {}, value(a[k])), el('td', { class: 'changed' }, value(b[k]))));
    }
    return el('details', { class: 'section', open: true, 'data-section': 'proposedTerms' }, el('summary', { text: t('proposedChange') }),
      el('table', { class: 'diff' }, el('thead', {}, el('tr', {}, el('th', { text: t('field') }), el('th', { text: t('inForce') }), el('th', { text: t('proposed') }))),
        el('tbody', {}, rows)));
  }
  function renderParties(doc, parent) {
    const content = Object.assign({}, parent ? parent.notification : {}, doc.notification || doc.annex7 || {});
    if (doc.movementTemplate && doc.movementTemplate.carriers) content.carriers = doc.movementTemplate.carriers;
    const rows = [];
    const add = (role, org) => {
      if (!org) return;
      rows.push(el('dt', { text: fieldLabel(role) }), el('dd', {}, org, org === me.org ? el('strong', { text: ' (' + t('you') + ')' }) : null));
    };
    for (const role of ['notifier', 'arranger', 'consignee', 'facility']) add(role, content[role] && content[role].organisationId);
    for (const role of ['producers', 'carriers']) (content[role] || []).forEach((p) => add(role, p.organisationId));
    const ca = content.competentAuthorities || {};
    add('dispatch', ca.dispatch && ca.dispatch.organisationId);
    add('destination', ca.destination && ca.destination.organisationId);
    (ca.transit || []).forEach((p) => add('transit', p.organisationId));
    $('parties').replaceChildren(...rows);
  }
  function renderMovements(doc) {
    const mv = doc.movements;
    $('movements-card').hidden = !mv;
    if (!mv) return;
    // one sentence: "Shipments: 1 made, 2 left of 3. Quantity: 10 t
    // shipped, 90 t left." (zero counts are absent from the answer)
    const total = Number((doc.notification && doc.notification.numberOfShipments) || 0);
    // a zero quantity may come without its unit: the notified one then
    const unitOf = (q) => (q && ['tonnes', 'cubicMetres'].find((u) => u in q)) || null;
    const unit = unitOf(mv.quantityUsed) || unitOf(mv.quantityLeft) || unitOf(doc.notification && doc.notification.totalQuantity) || 'tonnes';
    const inUnit = (q) => quantity(unitOf(q) ? q : { [unit]: {} });
    const sentence = t('movementsSentence', {
      made: Number(mv.count || 0), left: Number(mv.shipmentsLeft || 0), total: total || Number(mv.count || 0) + Number(mv.shipmentsLeft || 0),
      shipped: inUnit(mv.quantityUsed), remainder: inUnit(mv.quantityLeft),
    });
    const entries = mv.entries || [];
    $('movements').replaceChildren(el('p', { id: 'movements-summary', text: sentence }),
      ...(entries.length ? [el('table', {}, el('thead', {}, el('tr', {}, ['number', 'state', 'shippedOn', 'quantity'].map((k) => el('th', { scope: 'col', text: t(k) })))),
        el('tbody', {}, entries.map((e) => el('tr', { 'data-id': e.id },
          el('td', {}, el('a', { href: '#/doc/' + encodeURIComponent(e.id), text: e.number })), el('td', {}, badge(e.state)),
          el('td', { text: e.actualDateOfShipment ? fmtDate(e.actualDateOfShipment) : t('empty') }),
          el('td', { text: quantity(e.actualQuantity || e.quantity || {}) || t('empty') })))))] : []));
  }
  function renderDeadlines(list) {
    if (!list.length) { $('deadlines').replaceChildren(el('p', { class: 'empty', text: t('none') })); return; }
    $('deadlines').replaceChildren(el('table', {}, el('thead', {}, el('tr', {}, ['rule', 'party', 'state', 'due', 'remaining'].map((k) => el('th', { text: t(k) })))),
      el('tbody', {}, list.map((d) => el('tr', { 'data-rule': d.rule, 'data-state': d.state },
        el('td', {}, ruleLabel(d.rule), el('br'), el('small', { text: d.legalBasis || '' })),
        el('td', {}, d.party || '', d.partyRole ? el('br') : null, d.partyRole ? el('small', { text: roleLabel(d.partyRole) }) : null),
        el('td', {}, badge(d.state)), el('td', { text: fmtDate(d.dueAt) }), el('td', { class: 'remaining', text: remaining(d), title: d.daysLeft != null ? t(d.daysLeft < 0 ? 'daysLate' : 'calendarDays', { n: Math.abs(d.daysLeft) }) : null }))))));
  }
  // what is left of a deadline, in working days at the acting party's place,
  // as the server counted it from today by the provider's clock (its test
  // clock in a sandbox): GetDocument's workingDaysLeft and daysLeft, never
  // this computer's clock. Past the due day with no working day between
  // (a weekend), the calendar days late.
  function remaining(d) {
    if (d.workingDaysLeft != null) {
      const n = Number(d.workingDaysLeft), c = Number(d.daysLeft);
      if (n < 0) return t('workingDaysLate', { n: -n });
      if (c < 0) return t('daysLate', { n: -c });
      if (d.state === 'OVERDUE') return t('empty'); // swept as of a later time (admin sweep -as-of)
      return n > 0 || c > 0 ? t('workingDaysLeft', { n }) : t('dueToday');
    }
    if (d.remaining) return t('suspendedWith', { n: Math.round(parseInt(d.remaining, 10) / 86400) });
    return '';
  }
  // Print: the document as its official form (PDF), saved as a file; the
  // inspection link its QR code holds is shown beside it.
  async function printDocument() {
    if (!current) return;
    const r = await apiOK(face() + 'PrintDocument', { documentId: current.id, language: lang });
    save(r.document, r.fileName, 'application/pdf');
    $('print-result').hidden = false;
    $('print-result').replaceChildren(t('printed', { file: r.fileName, until: fmtDate(r.inspectionLinkExpiresAt) }), ' ',
      el('a', { href: r.inspectionLink, target: '_blank', rel: 'noopener noreferrer', text: r.inspectionLink }));
  }

  // The register: an export job started, followed until it is done, its
  // file saved.
  async function exportRegister(ev) {
    ev.preventDefault();
    const body = { format: $('export-format').value, language: lang };
    if ($('export-from').value) body.from = $('export-from').value;
    if ($('export-to').value) body.to = $('export-to').value;
    const { exportId } = await apiOK(face() + 'ExportRegister', body);
    for (;;) {
      const r = await apiOK(face() + 'GetRegisterExport', { exportId });
      if (r.state === 'DONE') {
        save(r.document, r.fileName, r.format === 'XLSX' ? 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' : 'text/csv');
        $('export-state').textContent = t('exportDone', { file: r.fileName, rows: r.rows });
        $('export-state').dataset.state = 'DONE';
        return;
      }
      $('export-state').textContent = t('exportProgress', { state: r.state, done: r.progress.done, total: r.progress.total });
      $('export-state').dataset.state = r.state;
      if (r.state === 'FAILED' || r.state === 'CANCELLED') return;
      await new Promise((res) => setTimeout(res, 500));
    }
  }
  function save(base64, fileName, type) {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    const url = URL.createObjectURL(new Blob([bytes], { type }));
    const a = el('a', { href: url, download: fileName });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  }

  async function renderTimeline(id) {
    const r = await api(face() + 'GetDocumentHistory', { documentId: id });
    if (r.status !== 200) { $('timeline').replaceChildren(); $('chain').textContent = r.data.message || ''; return; }
    const h = r.data;
    $('chain').className = 'chain ' + (h.chain.verified ? 'ok' : 'broken');
    $('chain').replaceChildren(...(h.chain.verified ? [t('chainOk') + ' ', el('code', { text: h.chain.head })] : [t('chainBroken', { row: h.chain.brokenAt, reason: h.chain.reason })]));
    $('timeline').replaceChildren(...h.entries.slice().reverse().map((e) => {
      const who = e.actorOrganisationId ? (e.actor ? `${e.actor} (${e.actorOrganisationId})` : e.actorOrganisationId) : t('system');
      return el('li', { 'data-seq': e.seq, 'data-intent': e.intent }, el('time', { datetime: e.at, text: fmtTime(e.at) }), el('br'),
        el('strong', { text: intentLabel(e.intent) }), ' · ', who, ' · ', e.fromState ? stateLabel(e.fromState) + ' → ' : '', stateLabel(e.toState),
        e.detail ? el('div', { class: 'hint', text: e.detail }) : null);
    }));
  }

  // The state diagram: states in layers by their distance from the initial
  // state, the current one filled; the scheduler's transitions dashed.
  function drawDiagram(m, state) {
    const svg = $('diagram');
    const NS = 'http://www.w3.org/2000/svg';
    const s = (tag, attrs, text) => {
      const e = document.createElementNS(NS, tag);
      for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
      if (text) e.textContent = text;
      return e;
    };
    const depth = { [m.initial]: 0 };
    const queue = [m.initial];
    while (queue.length) {
      const a = queue.shift();
      for (const tr of m.transitions) if (tr.from === a && !(tr.to in depth)) { depth[tr.to] = depth[a] + 1; queue.push(tr.to); }
    }
    let maxDepth = Math.max(0, ...Object.values(depth));
    for (const st of m.states) if (!(st in depth)) depth[st] = ++maxDepth;
    const layers = [];
    for (const st of m.states) (layers[depth[st]] = layers[depth[st]] || []).push(st);
    const W = 150, H = 26, GX = 14, GY = 34;
    const width = Math.max(...layers.map((l) => (l ? l.length : 0))) * (W + GX) + GX;
    const pos = {};
    layers.forEach((l, i) => (l || []).forEach((st, j) => { pos[st] = { x: GX + j * (W + GX), y: 8 + i * (H + GY) }; }));
    const height = layers.length * (H + GY) + 8;
    svg.replaceChildren();
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.setAttribute('width', width);
    svg.setAttribute('height', height);
    svg.setAttribute('aria-label', `${kindLabel(m.kind)}: ${stateLabel(state)}`);
    const defs = s('defs', {});
    const marker = s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
    marker.append(s('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#8c959f' }));
    defs.append(marker);
    svg.append(defs);
    const seen = new Set();
    for (const tr of m.transitions) {
      const key = tr.from + '>' + tr.to;
      if (tr.from === tr.to || seen.has(key)) continue;
      seen.add(key);
      const a = pos[tr.from], b = pos[tr.to];
      const x1 = a.x + W / 2, x2 = b.x + W / 2;
      let d;
      if (b.y > a.y) d = `M ${x1} ${a.y + H} C ${x1} ${a.y + H + GY / 2}, ${x2} ${b.y - GY / 2}, ${x2} ${b.y}`;
      else d = `M ${a.x + W} ${a.y + H / 2} C ${a.x + W + 40} ${a.y}, ${b.x + W + 40} ${b.y + H}, ${b.x + W} ${b.y + H / 2}`;
      const p = s('path', { d, 'marker-end': 'url(#arrow)', class: tr.system ? 'system' : '' });
      p.append(s('title', {}, intentLabel(tr.intent)));
      svg.append(p);
    }
    for (const st of m.states) {
      const g = s('g', { class: 'state' + (st === state ? ' current' : '') + (m.final.includes(st) ? ' final' : ''), 'data-state': st });
      g.append(s('rect', { x: pos[st].x, y: pos[st].y, width: W, height: H, rx: 6 }));
      g.append(s('text', { x: pos[st].x + W / 2, y: pos[st].y + H / 2 + 4, 'text-anchor': 'middle' }, stateLabel(st).slice(0, 26)));
      svg.append(g);
    }
  }

  // --- A new document ----------------------------------------------------------
  // What a company creates from the console: a notification or an Annex VII
  // document, as a draft (the kind's create operation, its block's form);
  // filing it is then the draft's SUBMISSION.
  const CREATES = {
    NOTIFICATION: { operation: DIWASS + 'CompanyDocumentApi/CreateSubmission', block: 'notification', role: 'notifier' },
    ANNEX_VII: { operation: DIWASS + 'CompanyDocumentApi/CreateAnnex7', block: 'annex7', role: 'arranger' },
  };
  async function showNew(kind) {
    const c = CREATES[kind];
    if (!c) throw new Error(kind);
    show('new-view');
    $('new-title').textContent = t('new') + ': ' + kindLabel(kind);
    $('new-host').append($('action'));
    current = null;
    const schema = await schemaOf(c.operation, c.block);
    action = { create: kind, intent: 'CREATE', block: c.block, operation: c.operation, schema };
    $('action-title').textContent = kindLabel(kind);
    $('action-fields').replaceChildren(field(schema, c.block, c.block, { [c.role]: { organisationId: me.org } }, true));
    $('action-errors').hidden = true;
    $('stale').hidden = true;
    $('action').hidden = false;
    $('action-fields').querySelector('input, select, textarea').focus();
  }

  // --- Acting ----------------------------------------------------------------
  // An intent's form is generated from the schema of its block in the
  // OpenAPI description (the request of the intent's own operation), pre-
  // filled with the block as the document carries it. Submitting sends the
  // document as read with the block filled in (SetByIntent); a movement's
  // intents go to their own operations, as SetByIntent refuses movements.
  let openapi = null;
  async function schemaOf(operation, block) {
    if (!openapi) openapi = await (await fetch('/openapi.json')).json();
    const op = openapi.paths[operation] && openapi.paths[operation].post;
    const req = op && op.requestBody && resolve(op.requestBody.content['application/json'].schema);
    if (req && req.properties && req.properties[block]) return resolve(req.properties[block]);
    // An intent executed by SetByIntent itself (WITHDRAWAL): its block is
    // a property of the retrieval document (GetDocument's, of the same API).
    const get = openapi.paths[operation.replace(/[^/]+$/, 'GetDocument')];
    const resp = get && get.post && get.post.responses['200'] && resolve(get.post.responses['200'].content['application/json'].schema);
    const doc = resp && resp.properties && resp.properties.document && resolve(resp.properties.document);
    for (const container of Object.values((doc && doc.properties) || {})) {
      const c = resolve(container);
      if (c.properties && c.properties[block]) return resolve(c.properties[block]);
    }
    return { type: 'object', properties: {} };
  }
  function resolve(sc) {
    let guard = 0;
    while (sc && sc.$ref && guard++ < 20) sc = openapi.components.schemas[sc.$ref.split('/').pop()];
    if (sc && sc.allOf) { // a reference with a description of its own
      const merged = Object.assign({}, ...sc.allOf.map(resolve));
      merged.properties = Object.assign({}, ...sc.allOf.map((x) => resolve(x).properties || {}));
      if (!Object.keys(merged.properties).length) delete merged.properties;
      return Object.assign(merged, sc.description ? { description: sc.description } : {});
    }
    if (sc && sc.anyOf) { // an enum's names or its number; a value or null
      const named = sc.anyOf.find((x) => x.enum) || sc.anyOf.find((x) => x.$ref) || sc.anyOf.find((x) => x.type === 'string') || sc.anyOf[0];
      return Object.assign({}, resolve(named), sc.description ? { description: sc.description } : {});
    }
    return sc || {};
  }
  const isDate = (sc) => sc.type === 'string' && /YYYY-MM-DD(?!T)/.test(sc.description || '') && !/HH/.test(sc.description || '');

  let action = null; // { intent, block, operation, schema, create }
  let pendingNotice = ''; // said once the next view shows
  async function openAction(intent) {
    const f = current.intents.find((x) => x.intent === intent);
    if (!f) return;
    const schema = await schemaOf(f.operation, f.block);
    action = { intent, block: f.block, operation: f.operation, schema };
    $('action-title').textContent = intentLabel(intent) + ' — ' + current.doc.number;
    $('action-hint').textContent = '';
    const prefill = current.doc[f.block];
    $('action-fields').replaceChildren(field(schema, f.block, f.block, prefill, true));
    $('action-errors').hidden = true;
    $('stale').hidden = true;
    $('action').hidden = false;
    const first = $('action-fields').querySelector('input, select, textarea');
    (first || $('action-submit')).focus();
  }
  function closeAction() { action = null; $('action').hidden = true; }

  let uid = 0;
  // field renders schema sc at data path path (the block's name first).
  function field(sc, name, path, v, top) {
    sc = resolve(sc);
    const id = 'f' + (++uid);
    const label = fieldLabel(name);
    const hint = sc.description ? el('span', { class: 'hint', id: id + '-hint', text: sc.description }) : null;
    const err = el('span', { class: 'field-error', 'data-for': path, id: id + '-err', role: 'alert' });
    const described = [hint ? id + '-hint' : '', id + '-err'].filter(Boolean).join(' ');
    if (sc.type === 'object' || sc.properties) {
      const props = sc.properties || {};
      const req = new Set(sc.required || []);
      const keys = Object.keys(props).filter((k) => k !== 'meta');
      keys.sort((a, b) => (req.has(b) - req.has(a)) || (props[b].$ref && !props[a].$ref ? 0 : 0));
      const inner = keys.map((k) => field(props[k], k, path + '.' + k, v ? v[k] : undefined, false));
      if (top) return el('div', { 'data-path': path, 'data-type': 'object' }, inner, err);
      return el('fieldset', { 'data-path': path, 'data-type': 'object' }, el('legend', { text: label }), inner, err);
    }
    if (sc.type === 'array') {
      const item = resolve(sc.items || {});
      const list = el('div', { class: 'list', 'data-path': path, 'data-type': 'array' });
      const addItem = (x) => {
        const n = list.querySelectorAll(':scope > .list-item').length;
        const row = el('div', { class: 'list-item' }, field(item, name + ' ' + (n + 1), path + '.' + n, x, false),
          el('button', { type: 'button', class: 'secondary', text: t('remove'), 'aria-label': t('remove') + ' ' + label + ' ' + (n + 1) }));
        row.lastChild.addEventListener('click', () => { row.remove(); renumber(list, path); });
        list.insertBefore(row, list.lastChild);
      };
      list.append(el('button', { type: 'button', class: 'secondary', text: t('add') + ': ' + label }));
      list.lastChild.addEventListener('click', () => { addItem(undefined); const inputs = list.querySelectorAll('input, select, textarea'); if (inputs.length) inputs[inputs.length - 1].focus(); });
      (Array.isArray(v) ? v : []).forEach(addItem);
      return el('fieldset', {}, el('legend', { text: label }), hint, list, err);
    }
    let input;
    if (sc.enum) {
      input = el('select', { id }, el('option', { value: '', text: t('chooseOne') }),
        sc.enum.filter((x) => !/_UNSPECIFIED$/.test(x)).map((x) => el('option', { value: x, text: value(x).textContent })));
      if (v !== undefined && v !== null && !/_UNSPECIFIED$/.test(String(v))) input.value = v;
    } else if (sc.type === 'boolean') {
      input = el('input', { id, type: 'checkbox' });
      input.checked = !!v;
    } else if (sc.type === 'integer' || sc.type === 'number') {
      input = el('input', { id, type: 'number', step: sc.type === 'integer' ? '1' : 'any' });
      if (v !== undefined && v !== null) input.value = v;
    } else if (isDate(sc)) {
      input = el('input', { id, type: 'date' });
      if (v) input.value = v;
    } else if ((sc.maxLength || 0) > 200) {
      input = el('textarea', { id, rows: 2 });
      if (v) input.value = v;
    } else {
      input = el('input', { id, type: 'text' });
      if (v !== undefined && v !== null) input.value = v;
    }
    input.dataset.path = path;
    input.dataset.type = sc.enum ? 'enum' : (sc.type || 'string');
    input.setAttribute('aria-describedby', described);
    const wrap = el('div', { class: 'field' }, el('label', { for: id, text: label }), input, hint, err);
    if (sc.type === 'boolean') wrap.classList.add('check');
    return wrap;
  }
  function renumber(list, path) {
    list.querySelectorAll(':scope > .list-item').forEach((row, i) => {
      row.querySelectorAll('[data-path]').forEach((e) => {
        const rest = e.dataset.path.slice(path.length + 1).replace(/^\d+/, String(i));
        e.dataset.path = path + '.' + rest;
      });
    });
  }
  // collect reads the form back into the block's JSON.
  function collect(node) {
    const type = node.dataset.type;
    if (type === 'object') {
      const out = {};
      for (const child of node.querySelectorAll('[data-path]')) {
        if (parentOf(child) !== node) continue;
        const k = child.dataset.path.split('.').pop();
        const x = collect(child);
        if (x !== undefined) out[k] = x;
      }
      // an optional object left empty (a quantity's other unit) is absent
      return Object.keys(out).length || node.parentElement === $('action-fields') ? out : undefined;
    }
    if (type === 'array') {
      const out = [];
      for (const row of node.querySelectorAll(':scope > .list-item')) {
        const child = row.querySelector('[data-path]');
        const x = collect(child);
        if (x !== undefined) out.push(x);
      }
      return out;
    }
    if (type === 'boolean') return node.checked;
    if (node.value === '') return undefined;
    if (type === 'integer' || type === 'number') return Number(node.value);
    return node.value;
  }
  function parentOf(e) { // the nearest enclosing element that carries a path
    let p = e.parentElement;
    while (p && !p.dataset.path) p = p.parentElement;
    return p;
  }

  async function submitAction(ev) {
    ev.preventDefault();
    if (!action) return;
    for (const e of $('action').querySelectorAll('.field-error')) e.textContent = '';
    for (const e of $('action').querySelectorAll('.invalid')) e.classList.remove('invalid');
    $('action-errors').hidden = true;
    $('stale').hidden = true;
    const root = $('action-fields').firstElementChild;
    const block = collect(root);
    const { intent, operation } = action;
    const creating = !!action.create || operation.endsWith('/CreateMovementTemplate');
    let r;
    $('action-submit').disabled = true;
    try {
      if (action.create) {
        r = await api(operation, { [action.block]: block });
      } else if (operation.endsWith('/CreateMovementTemplate')) {
        r = await api(operation, { notificationId: current.id, [action.block]: block });
      } else if (current.kind === 'MOVEMENT') {
        // the version read: a movement someone changed meanwhile is refused
        // (code 10) as SetByIntent refuses a stale document
        r = await api(operation, { documentId: current.id, version: current.doc.version, [action.block]: block });
      } else {
        const doc = JSON.parse(JSON.stringify(current.doc));
        doc[action.block] = block;
        r = await api(face() + 'SetByIntent', { document: { [current.container]: doc }, intent });
      }
    } finally {
      $('action-submit').disabled = false;
    }
    if (r.status === 200 && !(r.data.businessErrors || []).length) {
      closeAction();
      if (creating) {
        const created = r.data.document || r.data.movement || {};
        pendingNotice = t('created', { number: created.number || '' });
        location.hash = '#/doc/' + encodeURIComponent(created.id);
        return;
      }
      notice(t('done', { intent: intentLabel(intent) }));
      await showDocument(current.id);
      $('doc-state').focus();
      return;
    }
    const problems = [];
    if (r.status === 200) {
      for (const be of r.data.businessErrors) problems.push({ field: be.field, message: `${be.message} (${be.code})` });
    } else if (r.status === 409 || (r.data.details || []).some((d) => d.reason === 'VERSION_MISMATCH')) {
      $('stale').hidden = false;
      $('reload').focus();
      return;
    } else {
      const violations = (r.data.details || []).flatMap((d) => d.fieldViolations || []);
      for (const fv of violations) problems.push({ field: fv.field.replace(new RegExp('^document\\.' + current.container + '\\.'), ''), message: fv.description });
      if (!violations.length) problems.push({ field: '', message: r.data.message || 'HTTP ' + r.status });
    }
    const unplaced = [];
    let first = null;
    for (const p of problems) {
      const slot = p.field && fieldSlot(p.field);
      if (slot) {
        slot.textContent = (slot.textContent ? slot.textContent + ' ' : '') + p.message;
        const wrap = slot.closest('.field') || slot.parentElement;
        wrap.classList.add('invalid');
        const input = wrap.querySelector('input, select, textarea');
        if (input) input.setAttribute('aria-invalid', 'true');
        first = first || input || slot;
      } else unplaced.push(p);
    }
    $('action-errors').replaceChildren(el('li', { text: t('fixErrors') }), ...unplaced.map((p) => el('li', { text: (p.field ? p.field + ': ' : '') + p.message })));
    $('action-errors').hidden = false;
    (first || $('action-errors')).focus && (first || $('action-errors')).focus();
  }
  // fieldSlot finds the error slot of a field path, or of its nearest
  // enclosing field (a rule about a list names the list).
  function fieldSlot(path) {
    // The server names list items with brackets (producers[0].organisationId);
    // the form's paths use dots (producers.0.organisationId).
    let p = path.replace(/\[(\d+)\]/g, '.$1');
    while (p) {
      const slot = $('action').querySelector(`.field-error[data-for="${CSS.escape(p)}"]`);
      if (slot) return slot;
      p = p.includes('.') ? p.slice(0, p.lastIndexOf('.')) : '';
    }
    return null;
  }

  // --- Start -----------------------------------------------------------------
  async function start() {
    lang = localStorage.getItem('wasteflow.lang') || ((navigator.language || '').toLowerCase().startsWith('de') ? 'de' : 'en');
    translatePage();
    config = await (await fetch('/ui/config.json')).json();
    // ListProvider is a GET (no body, no provider_id header): the
    // providers' names for the login form.
    const names = {};
    try {
      const r = await fetch(API.providers, { cache: 'no-store' });
      if (r.ok) for (const p of (await r.json()).providers || []) names[p.id] = p.name || '';
    } catch { /* the ids alone */ }
    $('provider').replaceChildren(...(config.providers || []).map((p) => el('option', { value: p, text: names[p] ? `${names[p]} (${p})` : p })));
    $('login-form').addEventListener('submit', (ev) => login(ev).catch(report));
    $('logout').addEventListener('click', logout);
    $('lang').addEventListener('change', () => { lang = $('lang').value; localStorage.setItem('wasteflow.lang', lang); notice(''); translatePage(); showSession(); route(); });
    $('filters').addEventListener('submit', (ev) => {
      ev.preventDefault();
      filters.kind = $('filter-kind').value; filters.state = $('filter-state').value; filters.sort = $('sort').value; pageStart = 0;
      showList(listMode).catch(report);
    });
    $('filter-kind').addEventListener('change', () => fillStates());
    $('prev').addEventListener('click', () => { pageStart = Math.max(0, pageStart - PAGE); showList(listMode).catch(report); });
    $('next').addEventListener('click', () => { pageStart += PAGE; showList(listMode).catch(report); });
    $('search').addEventListener('submit', (ev) => search(ev).catch(report));
    $('action').addEventListener('submit', (ev) => submitAction(ev).catch(report));
    $('action-cancel').addEventListener('click', () => {
      const leaving = action && action.create;
      closeAction();
      if (leaving) location.hash = '#/documents';
    });
    $('reload').addEventListener('click', () => showDocument(current.id).catch(report));
    $('print').addEventListener('click', () => printDocument().catch(report));
    $('export-form').addEventListener('submit', (ev) => exportRegister(ev).catch(report));
    window.addEventListener('hashchange', () => { notice(pendingNotice); pendingNotice = ''; route(); });
    route();
  }
  start().catch(report);
})();
