// wasteflow signing page: the person named in a signing process logs in,
// sees what they are asked to sign (a note's layers with the fields each
// sets, and what the signature covers) and signs or declines. It talks
// only to the public API of the server that serves it.
'use strict';
(() => {
  const API = {
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

  async function call(path, body, token) {
    const headers = { 'Content-Type': 'application/json', provider_id: provider };
    if (token) headers.Authorization = 'Bearer ' + token;
    const resp = await fetch(path, { method: 'POST', headers, cache: 'no-store', body: JSON.stringify(body || {}) });
    const data = await resp.json().catch(() => ({}));
    if (!resp.ok) throw new Error(data.message || `The server answered HTTP ${resp.status}.`);
    return data;
  }

  function show(id, text) {
    const el = $(id);
    el.textContent = text;
    el.hidden = !text;
  }

  function el(tag, text, cls) {
    const n = document.createElement(tag);
    if (text !== undefined) n.textContent = text;
    if (cls) n.className = cls;
    return n;
  }

  // The German names of the note's fields (the element names are their
  // German words without umlauts), with English beside them: a field path
  // such as befoerderer[0].uebernahmeDatum reads "Beförderer 1 › Übernahmedatum".
  const FIELD_LABELS = {
    nummer: ['Nummer', 'number'], pruefziffer: ['Prüfziffer', 'check digit'], nachweisnummer: ['Nachweisnummer', 'disposal proof number'],
    abfallschluessel: ['Abfallschlüssel', 'waste code'], menge: ['Menge (t)', 'quantity (t)'], erzeuger: ['Erzeuger', 'producer'],
    befoerderer: ['Beförderer', 'carrier'], zwischenlager: ['Zwischenlager', 'interim storage'], entsorger: ['Entsorger', 'disposer'],
    uebergabeDatum: ['Übergabedatum', 'hand-over date'], unsNrn: ['Übernahmescheinnummern', 'acceptance note numbers'],
    vermerke: ['Vermerke', 'remarks'], name: ['Name', 'name'], anschrift: ['Anschrift', 'address'], kennzeichen: ['Kennzeichen', 'vehicle registration'],
    uebernahmeDatum: ['Übernahmedatum', 'take-over date'], annahmeDatum: ['Annahmedatum', 'acceptance date'],
  };
  function fieldLabel(path, lang) {
    return path.split('.').map((seg) => {
      const m = /^([A-Za-z]+)(?:\[(\d+)\])?$/.exec(seg);
      if (!m || !FIELD_LABELS[m[1]]) return seg;
      const word = FIELD_LABELS[m[1]][lang];
      return m[2] === undefined ? word : `${word} ${Number(m[2]) + 1}`;
    }).join(' › ');
  }

  function render(r) {
    const p = r.process;
    const by = p.requestedBy || {};
    $('requested-by').textContent = by.username
      ? `${by.username} (${by.organisationName || by.organisationId})` : (by.organisationName || by.organisationId || 'unknown');
    const at = $('requested-at');
    at.dateTime = p.createdAt;
    at.textContent = p.createdAt ? new Date(p.createdAt).toLocaleString() : '';
    $('state').textContent = p.state;
    $('covers').textContent = r.covers;
    show('sealed', r.sealed ? 'The whole document carries a signature: no layer or field can follow it.' : '');
    const layers = $('layers');
    layers.replaceChildren();
    r.layers.forEach((l, i) => {
      const box = el('section', undefined, 'card layer' + (i === r.layers.length - 1 ? ' top' : ''));
      box.dataset.index = l.index;
      box.dataset.signed = l.signed;
      box.append(el('h3', `Layer ${l.index}: ${l.layerType} (${l.atbRolle}) ` + (l.signed ? `signed by ${l.signedBy}` : 'not signed')));
      const table = el('table');
      for (const f of l.fields) {
        const tr = el('tr');
        const label = el('td', undefined, 'path');
        const de = el('span', fieldLabel(f.path, 0), 'label-de');
        de.lang = 'de';
        label.append(de, el('small', ` ${fieldLabel(f.path, 1)} · ${f.path}`, 'label-en'));
        tr.append(label, el('td', f.value));
        table.append(tr);
      }
      if (!l.fields.length) table.append(el('tr', 'no fields of its own'));
      box.append(table);
      layers.append(box);
    });
    $('xml').hidden = !r.xml;
    $('xml').textContent = r.xml || '';
    const open = p.state === 'CREATED' || p.state === 'OPENED';
    $('sign').disabled = $('decline').disabled = !open;
    if (!open) show('done', `This process is ${p.state}.` + (p.reason ? ` ${p.reason}` : ''));
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
    } catch (e) {
      show('login-error', e.message);
    }
  }

  // act signs or declines, then shows the process as it now is: once
  // signed, the signed document with its new signature.
  async function act(path, body, message) {
    show('error', '');
    try {
      await call(path, body, accessToken);
      $('sign').disabled = $('decline').disabled = true;
      render(await call(API.open, { processId }, accessToken));
      show('done', message);
    } catch (e) {
      show('error', e.message);
    }
  }

  async function init() {
    $('login-form').addEventListener('submit', login);
    $('sign').addEventListener('click', () => act(API.sign, { processId }, 'Signed. The document went back to whoever asked for your signature.'));
    $('decline').addEventListener('click', () => act(API.decline, { processId, reason: $('reason').value }, 'Declined.'));
    if (!processId) show('login-error', 'This link names no signing process.');
    try {
      const cfg = await (await fetch('/ui/config.json', { cache: 'no-store' })).json();
      const select = $('provider');
      for (const id of cfg.providers) select.append(new Option(id, id));
    } catch (e) {
      show('login-error', 'The server settings could not be read: ' + e.message);
    }
  }
  init();
})();
