// wasteflow signing page: the person named in a signing process logs in,
// sees what they are asked to sign (a note's layers with the fields each
// sets, and what the signature covers) and signs or declines, in English
// or German. It talks only to the public API of the server that serves it.
'use strict';
(() => {
  const API = {
    providers: '/svc.core.v1.api.DiscoveryApi/ListProvider',
    login: '/svc.core.v1.api.AuthApi/IssueRefreshToken',
    access: '/svc.core.v1.api.AuthApi/RequestAccess',
    open: '/svc.signer.sign.v1.SigningProcessApi/OpenSigningProcess',
    sign: '/svc.signer.sign.v1.SigningProcessApi/SignSigningProcess',
    decline: '/svc.signer.sign.v1.SigningProcessApi/DeclineSigningProcess',
  };
  const $ = (id) => document.getElementById(id);
  const processId = new URLSearchParams(location.search).get('process') || '';
  let provider = '';
  let accessToken = ''; // in memory only
  let lang = 'en';
  let shown = null; // the process as last opened, to say again in another language
  let doneKey = ''; // what the last action did (a key of TEXT)

  // Every word the page shows, in English and German. An element with
  // data-i18n="key" gets TEXT[lang][key]; data-i18n-label sets aria-label.
  const TEXT = {
    en: {
      title: 'Sign a document', skip: 'Skip to the content', language: 'Language',
      loginTitle: 'Log in to sign', loginHint: 'Only the person this document is addressed to can sign it.',
      provider: 'Provider', username: 'Username', password: 'Password', loginButton: 'Log in',
      processTitle: 'What you are asked to sign', askedBy: 'Asked by', state: 'State', covers: 'Your signature will cover',
      testNote: 'A test signature of this demo server, made with a self-signed certificate, is not a qualified electronic signature.',
      xml: 'The document to sign (XML)', decideTitle: 'Sign or decline', sign: 'Sign', reason: 'Reason for declining', optional: '(optional)',
      decline: 'Decline', unknown: 'unknown', outcome: 'Outcome',
      coversLayer: 'layer {n} ({type}, signed as {role}) and every layer inside it',
      coversWhole: 'the whole document: no layer or field can follow it',
      coversRoot: 'the whole document (an enveloped signature of its root element)',
      sealed: 'The whole document carries a signature: no layer or field can follow it.',
      layer: 'Layer {n}: {type} ({role})', signedBy: 'signed by {who}', notSigned: 'not signed', noFields: 'no fields of its own',
      field: 'Field', value: 'Value', yourLayer: 'the layer you sign',
      done: 'Signed. The document went back to whoever asked for your signature.', declined: 'Declined.',
      ended: 'This process is {state}.', noProcess: 'This link names no signing process.',
      noSettings: 'The server settings could not be read: {msg}',
      offline: 'The server cannot be reached. Check your connection and try again.',
      sessionEnded: 'Your session has ended. Please log in again to sign.', httpError: 'The server answered HTTP {status}.',
    },
    de: {
      title: 'Ein Dokument unterschreiben', skip: 'Zum Inhalt springen', language: 'Sprache',
      loginTitle: 'Zum Unterschreiben anmelden', loginHint: 'Nur die Person, an die sich dieses Dokument richtet, kann es unterschreiben.',
      provider: 'Anbieter', username: 'Benutzername', password: 'Passwort', loginButton: 'Anmelden',
      processTitle: 'Was Sie unterschreiben sollen', askedBy: 'Angefragt von', state: 'Stand', covers: 'Ihre Unterschrift umfasst',
      testNote: 'Eine Testunterschrift dieses Demo-Servers mit einem selbstsignierten Zertifikat ist keine qualifizierte elektronische Signatur.',
      xml: 'Das zu unterschreibende Dokument (XML)', decideTitle: 'Unterschreiben oder ablehnen', sign: 'Unterschreiben',
      reason: 'Grund der Ablehnung', optional: '(freiwillig)', decline: 'Ablehnen', unknown: 'unbekannt', outcome: 'Ergebnis',
      coversLayer: 'Schicht {n} ({type}, unterschrieben als {role}) und jede Schicht darin',
      coversWhole: 'das ganze Dokument: keine Schicht und kein Feld kann danach folgen',
      coversRoot: 'das ganze Dokument (eine umschließende Signatur seines Wurzelelements)',
      sealed: 'Das ganze Dokument trägt eine Unterschrift: keine Schicht und kein Feld kann danach folgen.',
      layer: 'Schicht {n}: {type} ({role})', signedBy: 'unterschrieben von {who}', notSigned: 'nicht unterschrieben',
      noFields: 'keine eigenen Felder', field: 'Feld', value: 'Wert', yourLayer: 'die Schicht, die Sie unterschreiben',
      done: 'Unterschrieben. Das Dokument ist zurück bei der Stelle, die um Ihre Unterschrift gebeten hat.', declined: 'Abgelehnt.',
      ended: 'Dieser Vorgang ist {state}.', noProcess: 'Dieser Link nennt keinen Unterschriftsvorgang.',
      noSettings: 'Die Einstellungen des Servers können nicht gelesen werden: {msg}',
      offline: 'Der Server ist nicht erreichbar. Prüfen Sie Ihre Verbindung und versuchen Sie es erneut.',
      sessionEnded: 'Ihre Sitzung ist beendet. Bitte melden Sie sich zum Unterschreiben erneut an.', httpError: 'Der Server antwortete mit HTTP {status}.',
    },
  };
  // The words for the codes a process and a note carry, [English, German];
  // a code none of them knows is shown as words, never as its name.
  const CODES = {
    // the process's state; "ended" reads "This process is signed."
    states: {
      CREATED: ['Waiting for your signature', 'Wartet auf Ihre Unterschrift'], OPENED: ['Waiting for your signature', 'Wartet auf Ihre Unterschrift'],
      SIGNED: ['Signed', 'Unterschrieben'], DECLINED: ['Declined', 'Abgelehnt'], EXPIRED: ['Expired', 'Abgelaufen'],
      CANCELLED: ['Withdrawn by whoever asked', 'Von der anfragenden Stelle zurückgezogen'],
    },
    ended: {
      SIGNED: ['signed', 'unterschrieben'], DECLINED: ['declined', 'abgelehnt'], EXPIRED: ['expired', 'abgelaufen'],
      CANCELLED: ['withdrawn', 'zurückgezogen'],
    },
    // the note's layers (LayerType) and the roles they are signed in (ATB role)
    layers: {
      VORLAGE: ['Template', 'Vorlage'], ERZEUGER: ['Producer', 'Erzeuger'], BEFOERDERER: ['Carrier', 'Beförderer'],
      ENTSORGER: ['Disposer', 'Entsorger'], BEHOERDE: ['Authority', 'Behörde'], ERGAENZUNG: ['Supplement', 'Ergänzung'],
      ZWISCHENLAGER: ['Interim storage', 'Zwischenlager'],
    },
    roles: {
      ERZ: ['producer', 'Erzeuger'], BEF: ['carrier', 'Beförderer'], ZWL: ['interim storage', 'Zwischenlager'], ENT: ['disposer', 'Entsorger'],
      BEH: ['authority', 'Behörde'], PROV: ['provider', 'Provider'], BEVERZ: ['producer\'s agent', 'Bevollmächtigter des Erzeugers'],
      MAK: ['broker', 'Makler'], SONST: ['other', 'Sonstige'],
    },
  };
  // The names of the note's fields (its element names are their German
  // words without umlauts), [German, English]: befoerderer[0].uebernahmeDatum
  // reads "Beförderer 1 › Übernahmedatum" ("Carrier 1 › take-over date").
  const FIELD_LABELS = {
    nummer: ['Nummer', 'number'], pruefziffer: ['Prüfziffer', 'check digit'], nachweisnummer: ['Nachweisnummer', 'disposal proof number'],
    abfallschluessel: ['Abfallschlüssel', 'waste code'], menge: ['Menge (t)', 'quantity (t)'], erzeuger: ['Erzeuger', 'producer'],
    befoerderer: ['Beförderer', 'carrier'], zwischenlager: ['Zwischenlager', 'interim storage'], entsorger: ['Entsorger', 'disposer'],
    uebergabeDatum: ['Übergabedatum', 'hand-over date'], unsNrn: ['Übernahmescheinnummern', 'acceptance note numbers'],
    vermerke: ['Vermerke', 'remarks'], name: ['Name', 'name'], anschrift: ['Anschrift', 'address'], kennzeichen: ['Kennzeichen', 'vehicle registration'],
    uebernahmeDatum: ['Übernahmedatum', 'take-over date'], annahmeDatum: ['Annahmedatum', 'acceptance date'],
    abfallbezeichnung: ['Abfallbezeichnung', 'waste description'], behoerde: ['Behörde', 'authority'], strasse: ['Straße', 'street'],
    plz: ['Postleitzahl', 'postcode'], ort: ['Ort', 'town'], datum: ['Datum', 'date'], einheit: ['Einheit', 'unit'],
  };

  function t(key, vars = {}) {
    const s = (TEXT[lang] && TEXT[lang][key]) || TEXT.en[key] || key;
    return s.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
  }
  function code(table, c) {
    if (!c) return '';
    const w = CODES[table][c];
    if (w) return w[lang === 'de' ? 1 : 0];
    return c.charAt(0) + c.slice(1).toLowerCase().replace(/_/g, ' ');
  }
  // fieldLabel names a field path in one language (0: German, 1: English).
  function fieldLabel(path, which) {
    return path.split('.').map((seg) => {
      const m = /^([A-Za-z]+)(?:\[(\d+)\])?$/.exec(seg);
      const known = m && FIELD_LABELS[m[1]];
      // an element we have no word for: its name, capitalised, split at its capitals
      const word = known ? known[which] : (m ? m[1] : seg).replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase());
      return m && m[2] !== undefined ? `${word} ${Number(m[2]) + 1}` : word;
    }).join(' › ').replace(/^./, (c) => c.toUpperCase());
  }
  // fieldValue is a field's value for a reader: a date (2026-12-02) in the
  // reader's locale, anything else as the note has it.
  function fieldValue(v) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(v || '')) return document.createTextNode(v || '');
    const time = el('time', new Date(v + 'T12:00:00Z').toLocaleDateString(locale(), { dateStyle: 'medium', timeZone: 'UTC' }));
    time.dateTime = v;
    return time;
  }
  function locale() {
    const nav = Intl.DateTimeFormat().resolvedOptions().locale || navigator.language || '';
    if (nav.toLowerCase().startsWith(lang)) return nav;
    return lang === 'de' ? 'de-DE' : 'en-GB';
  }

  async function call(path, body, token) {
    const headers = { 'Content-Type': 'application/json', provider_id: provider };
    if (token) headers.Authorization = 'Bearer ' + token;
    let resp;
    try {
      resp = await fetch(path, { method: 'POST', headers, cache: 'no-store', body: JSON.stringify(body || {}) });
    } catch {
      throw new Error(t('offline')); // no answer at all: the network or the server is down
    }
    const data = await resp.json().catch(() => ({}));
    if (!resp.ok) {
      // an access token that has run out (it lives minutes): log in again
      const err = new Error(resp.status === 401 && token ? t('sessionEnded') : data.message || t('httpError', { status: resp.status }));
      err.status = resp.status;
      throw err;
    }
    return data;
  }

  // show says text in an element (an alert's .message), or hides it.
  function show(id, text) {
    const box = $(id);
    (box.querySelector('.message') || box).textContent = text;
    box.hidden = !text;
  }

  function el(tag, text, cls) {
    const n = document.createElement(tag);
    if (text !== undefined) n.textContent = text;
    if (cls) n.className = cls;
    return n;
  }

  // covers says what the signature covers, from the position and the layers.
  function covers(r) {
    const pos = r.process.position || '';
    const m = /^layer-(\d+)(\+envelope)?$/.exec(pos);
    if (!m) return r.layers.length ? r.covers : t('coversRoot');
    if (m[2]) return t('coversWhole');
    const l = r.layers.find((x) => String(x.index) === m[1]) || {};
    return t('coversLayer', { n: m[1], type: code('layers', l.layerType), role: code('roles', l.atbRolle) });
  }

  function render(r) {
    shown = r;
    const p = r.process;
    const by = p.requestedBy || {};
    $('requested-by').textContent = by.username
      ? `${by.username} (${by.organisationName || by.organisationId})` : (by.organisationName || by.organisationId || t('unknown'));
    const at = $('requested-at');
    at.dateTime = p.createdAt;
    at.textContent = p.createdAt ? new Date(p.createdAt).toLocaleString(locale(), { dateStyle: 'medium', timeStyle: 'short' }) : '';
    $('state').textContent = code('states', p.state);
    $('state').dataset.state = p.state;
    $('covers').textContent = covers(r);
    show('sealed', r.sealed ? t('sealed') : '');
    const layers = $('layers');
    layers.replaceChildren();
    r.layers.forEach((l, i) => {
      const top = i === r.layers.length - 1;
      const box = el('section', undefined, 'layer' + (top ? ' top' : ''));
      box.dataset.index = l.index;
      box.dataset.signed = l.signed;
      const title = el('h4', t('layer', { n: l.index, type: code('layers', l.layerType), role: code('roles', l.atbRolle) }), 'kern-title kern-title--small');
      const id = 'layer-' + l.index;
      title.id = id;
      box.setAttribute('aria-labelledby', id);
      const status = el('p', l.signed ? t('signedBy', { who: l.signedBy }) : t('notSigned'), 'layer-status' + (l.signed ? ' signed' : ''));
      box.append(title, status);
      if (top && !l.signed) status.append(' · ', el('strong', t('yourLayer')));
      const table = el('table', undefined, 'kern-table kern-table--small');
      const head = el('thead');
      const hr = el('tr', undefined, 'kern-table__row');
      for (const k of ['field', 'value']) {
        const th = el('th', t(k), 'kern-table__header');
        th.scope = 'col';
        hr.append(th);
      }
      head.append(hr);
      const body = el('tbody', undefined, 'kern-table__body');
      for (const f of l.fields) {
        const tr = el('tr', undefined, 'kern-table__row');
        tr.dataset.path = f.path;
        const label = el('th', undefined, 'kern-table__header path');
        label.scope = 'row';
        // In English the note's own (German) name stands under the English one.
        label.append(el('span', fieldLabel(f.path, lang === 'de' ? 0 : 1), 'label'));
        if (lang !== 'de') {
          const de = el('small', fieldLabel(f.path, 0), 'label-de');
          de.lang = 'de';
          label.append(de);
        }
        const value = el('td', undefined, 'kern-table__cell value');
        value.append(fieldValue(f.value));
        tr.append(label, value);
        body.append(tr);
      }
      if (!l.fields.length) {
        const tr = el('tr', undefined, 'kern-table__row');
        const td = el('td', t('noFields'), 'kern-table__cell');
        td.colSpan = 2;
        tr.append(td);
        body.append(tr);
      }
      table.append(head, body);
      box.append(table);
      layers.append(box);
    });
    $('xml').hidden = !r.xml;
    $('xml').textContent = r.xml || '';
    const open = p.state === 'CREATED' || p.state === 'OPENED';
    $('sign').disabled = $('decline').disabled = $('reason').disabled = !open;
    // Once the process has ended there is nothing to sign or decline: its outcome stands instead.
    $('decide-controls').hidden = !open;
    $('decide-title').textContent = t(open ? 'decideTitle' : 'outcome');
    if (doneKey) show('done', t(doneKey));
    else if (!open) show('done', t('ended', { state: code('ended', p.state) }) + (p.reason ? ` ${p.reason}` : ''));
    else show('done', '');
  }

  async function login(ev) {
    ev.preventDefault();
    show('login-error', '');
    provider = $('provider').value;
    try {
      const cfg = await (await fetch('/ui/config.json', { cache: 'no-store' })).json();
      const rt = await call(API.login, {
        usernameCredentials: { username: $('username').value.trim(), password: $('password').value }, appToken: cfg.appToken,
      });
      const at = await call(API.access, {}, rt.refreshToken);
      accessToken = at.accessToken;
      $('password').value = '';
      render(await call(API.open, { processId }, accessToken));
      $('login-view').hidden = true;
      $('process-view').hidden = false;
      show('who', $('username').value.trim());
      $('process-title').tabIndex = -1;
      $('process-title').focus();
    } catch (e) {
      show('login-error', e.message);
    }
  }

  // act signs or declines, then shows the process as it now is: once
  // signed, the signed document with its new signature.
  async function act(path, body, key) {
    show('error', '');
    try {
      await call(path, body, accessToken);
      $('sign').disabled = $('decline').disabled = true;
      doneKey = key;
      render(await call(API.open, { processId }, accessToken));
      $('done').tabIndex = -1;
      $('done').focus();
    } catch (e) {
      if (e.status === 401) { // the session ended: back to the login, saying why
        accessToken = '';
        $('process-view').hidden = true;
        $('login-view').hidden = false;
        show('login-error', e.message);
        $('username').focus();
        return;
      }
      show('error', e.message);
    }
  }

  // setLanguage says every word of the page in l (en or de) and keeps the
  // choice for the next visit (the console and the deadline page share it).
  function setLanguage(l) {
    lang = l === 'de' ? 'de' : 'en';
    document.documentElement.lang = lang;
    $('lang').value = lang;
    document.title = t('title') + ' · wasteflow';
    for (const n of document.querySelectorAll('[data-i18n]')) n.textContent = t(n.dataset.i18n);
    for (const n of document.querySelectorAll('[data-i18n-label]')) n.setAttribute('aria-label', t(n.dataset.i18nLabel));
    if (shown) render(shown);
    if (!processId) show('login-error', t('noProcess'));
    try { localStorage.setItem('wasteflow.lang', lang); } catch { /* storage off */ }
  }

  async function init() {
    let stored = '';
    try { stored = localStorage.getItem('wasteflow.lang') || ''; } catch { /* storage off */ }
    setLanguage(stored || ((navigator.language || '').toLowerCase().startsWith('de') ? 'de' : 'en'));
    $('lang').addEventListener('change', () => setLanguage($('lang').value));
    $('login-form').addEventListener('submit', login);
    $('sign').addEventListener('click', () => act(API.sign, { processId }, 'done'));
    $('decline').addEventListener('click', () => act(API.decline, { processId, reason: $('reason').value }, 'declined'));
    try {
      const cfg = await (await fetch('/ui/config.json', { cache: 'no-store' })).json();
      let names = {};
      try {
        const r = await fetch(API.providers, { cache: 'no-store' });
        if (r.ok) for (const p of (await r.json()).providers || []) names[p.id] = p.name;
      } catch { names = {}; }
      const select = $('provider');
      for (const id of cfg.providers) select.append(new Option(names[id] ? `${names[id]} (${id})` : id, id));
    } catch (e) {
      show('login-error', t('noSettings', { msg: e.message }));
    }
  }
  init();
})();
