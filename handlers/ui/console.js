// wasteflow console: the work queue, the document lists, a document with
// its content, parties, movements, deadlines, timeline and state diagram,
// and its follow-up intents as actions whose forms come from the OpenAPI
// description. It talks only to the public API of the server that serves
// it, as any client would: SetByIntent with the document as read.
//
// Words for people come from the server where it says them (issue 45.2):
// the x-labels, x-help, x-order, x-enum-labels and x-code-list of
// /openapi.json, the lists of /labels.json and the labels of
// /workflows/<kind>.json. Where it does not (yet), the tables below and
// words() say them; a person never reads a raw name or a field path.
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
  // The kinds the server runs, in its order, from GET /workflows.json
  // (loadKinds): the kind filter, a kind's words and what a company may
  // create come from there, so a kind the server adds needs no edit here.
  const KINDS = [];
  const KIND = {}; // kind → {kind, label, machine, parent, create}
  const PAGE = 25;
  const $ = (id) => document.getElementById(id);

  // --- Languages ------------------------------------------------------------
  const TEXT = {
    en: {
      app: 'wasteflow console', skip: 'Skip to content', mainNav: 'Main', queue: 'Work queue', documents: 'Documents', search: 'Find', searchLabel: 'Document number',
      language: 'Language', logout: 'Log out', login: 'Log in', loginButton: 'Log in', provider: 'Provider', username: 'Username',
      password: 'Password', kind: 'Kind', document: 'Document', state: 'State', any: 'any', sortBy: 'Sort', sortUpdated: 'last changed first',
      sortDeadline: 'nearest deadline first', sortNumber: 'by number', sortCreated: 'newest first', apply: 'Apply', number: 'Number',
      nextDeadline: 'Your next deadline', yourIntents: 'You can', updated: 'Changed', prev: 'Previous', next: 'Next', version: 'Version',
      actions: 'Actions', staleText: 'Someone changed this document since you opened it.', reload: 'Reload the document', submit: 'Submit',
      cancel: 'Cancel', content: 'Content', movements: 'Movements', timeline: 'Timeline', parties: 'Parties', deadlines: 'Deadlines',
      diagram: 'State diagram', diagramLegend: 'The current state is filled and marked ●; dashed arrows are the scheduler’s.',
      queueTitle: 'Your work queue: documents on which you can act now, nearest deadline first',
      documentsTitle: 'Documents your organisation is a party to', pageInfo: '{from}–{to} of {total}', none: 'Nothing here.',
      noActions: 'No action is open to you in this state.', print: 'Print (PDF)', exportRegister: 'Export the register', from: 'From', to: 'To', format: 'Format', export: 'Export',
      csv: 'CSV (comma-separated text)', xlsx: 'Excel workbook (XLSX)',
      exportProgress: 'Export {state}: {done} of {total} documents', exportRunning: 'under way', exportQueued: 'waiting', exportFailed: 'The export failed. Please try again.',
      exportDone: 'Saved {file}: {rows} rows.', printed: 'Saved {file}. Its QR code leads an inspector, without login, to the current document until {until}:', loggedInAs: '{user} · {org}', chainOk: 'Audit chain verified; head',
      chainBroken: 'Audit chain broken at row {row}: {reason}', system: 'the scheduler', you: 'you', done: 'Done: {intent}.',
      created: 'Created {number}.', notFound: 'No document {number} that you can see.', notFoundTitle: 'Not found', add: 'Add', remove: 'Remove',
      required: 'required', requiredNote: 'Fields marked * are required.', fixErrors: 'Please correct the marked fields.', proposedChange: 'Proposed change',
      inForce: 'In force', proposed: 'Proposed', field: 'Field', rule: 'Deadline', party: 'Party', due: 'Due', remaining: 'Remaining',
      shipments: 'Shipments', quantity: 'Quantity', shippedOn: 'Shipped on', movement: 'Movement', unit: 'Unit', tonnes: 'tonnes (t)', cubicMetres: 'cubic metres (m³)',
      movementsSentence: '{made} of {total} shipments made, {left} left; {shipped} shipped, {remainder} left.',
      movementsOmitted: '{listed} of the {all} movements are listed here: those still under way, then the most recent ones.',
      exchangesOmitted: '{listed} of {all} are listed here: the open ones, then the most recent.', exchangesAll: 'Show all {n}',
      historyFull: 'Every past exchange and time limit is listed.', historyLatest: 'Show the open and the most recent only',
      deadlinesOmitted: '{listed} of the {all} time limits are listed here: those running or suspended, then those that ended most recently.', deadlinesAll: 'Show all {n} time limits',
      movementsAll: 'Show all {n} movements', movementsOf: 'Movements of notification {number}', allDocuments: 'Show all documents',
      diwassSentAt: 'sent {at}', diwassAttempts: '{n} attempts', diwassAttempt1: '1 attempt', systemDIWASS: 'wasteflow, exchanging with DIWASS', diwassError: 'Why:', diwassNotSent: '{intent} of {at}: not sent to DIWASS (its update operation is not public)',
      under: 'Under', new: 'New', workingDaysLeft: '{n} working days left', workingDaysLate: '{n} working days late', calendarDays: '{n} calendar days', suspendedWith: 'suspended with {n} days left',
      badLogin: 'Log-in failed: {msg}', badCredentials: 'The username or the password is not right. Please try again.',
      tooManyLogins: 'Too many failed attempts. Please wait a few minutes, then try again.', empty: '—', yes: 'yes', no: 'no', chooseOne: 'choose…',
      daysLate: '{n} days late', dueToday: 'due today', // the provider's count (GetDocument's daysLeft), never the browser's
      item: '{label} {n}', decisionDetail: '{type}; {conditions}; valid until {until}', decisionNoDate: '{type}; {conditions}', conditionsN: '{n} conditions', condition1: '1 condition', conditions0: 'no conditions',
      invalidNumber: 'Enter a number such as 12.5.', requiredField: 'This field is required.', errorTitle: 'Something went wrong',
      loggedOutTitle: 'You have logged out.', loggedOutText: 'Log in again to continue. If others use this computer, close the browser window.',
      sessionEnded: 'Your session has ended.', sessionEndedText: 'For your safety the session ends after a while. Please log in again; what you had not submitted was not saved.',
      offlineTitle: 'No connection to the server.', offlineText: 'Check your network connection, then try again. Reload the document to see whether your last step was saved.',
      serverError: 'The server could not answer ({status}). Please try again in a moment.', mustLogIn: 'Please log in.',
    },
    de: {
      app: 'wasteflow-Konsole', skip: 'Zum Inhalt springen', mainNav: 'Hauptnavigation', queue: 'Arbeitsvorrat', documents: 'Dokumente', search: 'Suchen', searchLabel: 'Dokumentnummer',
      language: 'Sprache', logout: 'Abmelden', login: 'Anmelden', loginButton: 'Anmelden', provider: 'Anbieter', username: 'Benutzername',
      password: 'Passwort', kind: 'Art', document: 'Dokument', state: 'Status', any: 'alle', sortBy: 'Sortierung', sortUpdated: 'zuletzt geändert zuerst',
      sortDeadline: 'nächste Frist zuerst', sortNumber: 'nach Nummer', sortCreated: 'neueste zuerst', apply: 'Anwenden', number: 'Nummer',
      nextDeadline: 'Ihre nächste Frist', yourIntents: 'Sie können', updated: 'Geändert', prev: 'Zurück', next: 'Weiter', version: 'Version',
      actions: 'Aktionen', staleText: 'Jemand hat dieses Dokument geändert, seit Sie es geöffnet haben.', reload: 'Dokument neu laden',
      submit: 'Absenden', cancel: 'Abbrechen', content: 'Inhalt', movements: 'Verbringungen', timeline: 'Verlauf', parties: 'Beteiligte',
      deadlines: 'Fristen', diagram: 'Zustandsdiagramm', diagramLegend: 'Der aktuelle Status ist gefüllt und mit ● markiert; gestrichelte Pfeile sind die des Zeitplaners.',
      queueTitle: 'Ihr Arbeitsvorrat: Dokumente, bei denen Sie jetzt handeln können, nächste Frist zuerst',
      documentsTitle: 'Dokumente, an denen Ihre Organisation beteiligt ist', pageInfo: '{from}–{to} von {total}', none: 'Keine Einträge.',
      noActions: 'In diesem Status steht Ihnen keine Aktion offen.', print: 'Drucken (PDF)', exportRegister: 'Register exportieren', from: 'Von', to: 'Bis', format: 'Format', export: 'Exportieren',
      csv: 'CSV (Text mit Trennzeichen)', xlsx: 'Excel-Arbeitsmappe (XLSX)',
      exportProgress: 'Export {state}: {done} von {total} Dokumenten', exportRunning: 'läuft', exportQueued: 'wartet', exportFailed: 'Der Export ist fehlgeschlagen. Bitte versuchen Sie es erneut.',
      exportDone: '{file} gespeichert: {rows} Zeilen.', printed: '{file} gespeichert. Sein QR-Code führt Kontrolleure ohne Anmeldung bis {until} zum aktuellen Dokument:', loggedInAs: '{user} · {org}', chainOk: 'Prüfkette bestätigt; Kopf',
      chainBroken: 'Prüfkette bei Zeile {row} unterbrochen: {reason}', system: 'der Zeitplaner', you: 'Sie', done: 'Erledigt: {intent}.',
      created: '{number} angelegt.', notFound: 'Kein für Sie sichtbares Dokument {number}.', notFoundTitle: 'Nicht gefunden', add: 'Hinzufügen', remove: 'Entfernen',
      required: 'Pflichtfeld', requiredNote: 'Mit * markierte Felder sind Pflichtfelder.', fixErrors: 'Bitte korrigieren Sie die markierten Felder.', proposedChange: 'Beantragte Änderung',
      inForce: 'Geltend', proposed: 'Beantragt', field: 'Feld', rule: 'Frist', party: 'Beteiligter', due: 'Fällig', remaining: 'Verbleibend',
      shipments: 'Verbringungen', quantity: 'Menge', shippedOn: 'Versandt am', movement: 'Verbringung', unit: 'Einheit', tonnes: 'Tonnen (t)', cubicMetres: 'Kubikmeter (m³)',
      movementsSentence: '{made} von {total} Verbringungen durchgeführt, {left} verbleibend; {shipped} verbracht, {remainder} verbleibend.',
      movementsOmitted: 'Hier sind {listed} der {all} Verbringungen aufgeführt: die laufenden, dann die neuesten.',
      exchangesOmitted: 'Hier sind {listed} von {all} aufgeführt: die offenen, dann die neuesten.', exchangesAll: 'Alle {n} anzeigen',
      historyFull: 'Alle früheren Vorgänge und Fristen sind aufgeführt.', historyLatest: 'Nur die offenen und die neuesten anzeigen',
      deadlinesOmitted: 'Hier sind {listed} der {all} Fristen aufgeführt: die laufenden und ausgesetzten, dann die zuletzt beendeten.', deadlinesAll: 'Alle {n} Fristen anzeigen',
      movementsAll: 'Alle {n} Verbringungen anzeigen', movementsOf: 'Verbringungen der Notifizierung {number}', allDocuments: 'Alle Dokumente anzeigen',
      diwassSentAt: 'gesendet {at}', diwassAttempts: '{n} Versuche', diwassAttempt1: '1 Versuch', systemDIWASS: 'wasteflow beim Austausch mit DIWASS', diwassError: 'Grund:', diwassNotSent: '{intent} vom {at}: nicht an DIWASS gesendet (dessen Änderungsschnittstelle ist nicht öffentlich)',
      under: 'Zu', new: 'Neu', workingDaysLeft: 'noch {n} Arbeitstage', workingDaysLate: '{n} Arbeitstage überfällig', calendarDays: '{n} Kalendertage', suspendedWith: 'ausgesetzt, {n} Tage verbleibend',
      badLogin: 'Anmeldung fehlgeschlagen: {msg}', badCredentials: 'Benutzername oder Passwort stimmen nicht. Bitte versuchen Sie es erneut.',
      tooManyLogins: 'Zu viele fehlgeschlagene Versuche. Bitte warten Sie einige Minuten und versuchen Sie es dann erneut.', empty: '—', yes: 'ja', no: 'nein', chooseOne: 'bitte wählen…',
      daysLate: '{n} Tage überfällig', dueToday: 'heute fällig', // the provider's count (GetDocument's daysLeft), never the browser's
      item: '{label} {n}', decisionDetail: '{type}; {conditions}; gültig bis {until}', decisionNoDate: '{type}; {conditions}', conditionsN: '{n} Auflagen', condition1: '1 Auflage', conditions0: 'keine Auflagen',
      invalidNumber: 'Geben Sie eine Zahl ein, z. B. 12,5.', requiredField: 'Dieses Feld ist erforderlich.', errorTitle: 'Etwas ist schiefgegangen',
      loggedOutTitle: 'Sie haben sich abgemeldet.', loggedOutText: 'Melden Sie sich erneut an, um weiterzuarbeiten. Wenn andere diesen Computer nutzen, schließen Sie das Browserfenster.',
      sessionEnded: 'Ihre Sitzung ist beendet.', sessionEndedText: 'Zu Ihrer Sicherheit endet eine Sitzung nach einiger Zeit. Bitte melden Sie sich erneut an; was Sie noch nicht abgesendet hatten, wurde nicht gespeichert.',
      offlineTitle: 'Keine Verbindung zum Server.', offlineText: 'Prüfen Sie Ihre Netzwerkverbindung und versuchen Sie es dann erneut. Laden Sie das Dokument neu, um zu sehen, ob Ihr letzter Schritt gespeichert wurde.',
      serverError: 'Der Server konnte nicht antworten ({status}). Bitte versuchen Sie es gleich noch einmal.', mustLogIn: 'Bitte melden Sie sich an.',
    },
  };
  const DE = {
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
      notification: 'Notifizierung', annex7: 'Anhang-VII-Dokument', notifier: 'Notifizierende Person', consignee: 'Empfänger', facility: 'Anlage', producers: 'Erzeuger',
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
  // Values of enumerations and code lists people read, until the server
  // says them (x-enum-labels in /openapi.json, /labels.json): the fallback.
  const VALUES = {
    CONSENT: ['Consent', 'Zustimmung'], CONSENT_WITH_CONDITIONS: ['Consent with conditions', 'Zustimmung mit Auflagen'], OBJECTION: ['Objection', 'Einwand'],
    ACCEPTED: ['Accepted', 'Angenommen'], ACCEPTED_WITH_CONDITIONS: ['Accepted with conditions', 'Angenommen mit Auflagen'],
    CANCELLATION_OF_CONSENT: ['Cancellation of consent', 'Widerruf der Zustimmung'], CLOSURE: ['Closure', 'Abschluss'], REVALIDATION: ['Revalidation', 'Verlängerung'],
    CONFIRM: ['Confirm', 'Bestätigen'], REJECT: ['Reject', 'Zurückweisen'], REQUEST_CORRECTION: ['Request a correction', 'Berichtigung verlangen'],
    ROAD: ['Road', 'Straße'], RAIL: ['Rail', 'Schiene'], SEA: ['Sea', 'See'], AIR: ['Air', 'Luft'], INLAND_WATERWAYS: ['Inland waterways', 'Binnenwasserstraße'],
    DRUM: ['Drum', 'Fass'], WOODEN_BARREL: ['Wooden barrel', 'Holzfass'], JERRICAN: ['Jerrican', 'Kanister'], BOX: ['Box', 'Kiste'], BAG: ['Bag', 'Sack'],
    COMPOSITE: ['Composite packaging', 'Kombinationsverpackung'], PRESSURE_RECEPTACLE: ['Pressure receptacle', 'Druckgefäß'], BULK: ['Bulk', 'Lose Schüttung'], OTHER: ['Other', 'Sonstige'],
    EU_LIST_OF_WASTE: ['European list of waste', 'Europäisches Abfallverzeichnis'], BASEL_ANNEX_VIII: ['Basel Convention, Annex VIII', 'Basler Übereinkommen, Anlage VIII'],
    BASEL_ANNEX_IX: ['Basel Convention, Annex IX', 'Basler Übereinkommen, Anlage IX'], OECD: ['OECD list', 'OECD-Liste'], NATIONAL: ['National code', 'Nationaler Code'],
    AUTHORITY_DISPATCH: ['Competent authority of dispatch', 'Zuständige Behörde am Versandort'], AUTHORITY_DESTINATION: ['Competent authority of destination', 'Zuständige Behörde am Bestimmungsort'],
    AUTHORITY_TRANSIT: ['Competent authority of transit', 'Zuständige Durchfuhrbehörde'],
  };
  let lang = 'en';
  function t(key, vars) {
    let s = (TEXT[lang] && TEXT[lang][key]) || TEXT.en[key] || key;
    for (const [k, v] of Object.entries(vars || {})) s = s.replace('{' + k + '}', v);
    return s;
  }
  const locale = () => (lang === 'de' ? 'de-DE' : 'en-GB');
  function words(name) { // camelCase or UPPER_SNAKE in words: the last fallback
    if (/^[A-Z0-9_]+$/.test(name)) return name.charAt(0) + name.slice(1).toLowerCase().replace(/_/g, ' ');
    const w = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
    return w.charAt(0).toUpperCase() + w.slice(1);
  }

  // --- Words from the server (contract 3), the tables above as fallback -----
  // pick says a {en, de} label in the page's language.
  const pick = (x) => (x && typeof x === 'object' ? (x[lang] || x.en || '') : '');
  let lists = {}; // /labels.json: list name → code → {en, de}
  const machines = {}; // /workflows/<kind>.json by kind
  const listWord = (list, code) => pick((lists[list] || {})[code]);
  const slug = (kind) => String(kind || '').toLowerCase();
  // English words where the name in words reads badly (an intent is a
  // verb on its button), until the workflows say them
  const EN = {
    intents: {
      SUBMISSION: 'Submit', CORRECTION: 'Correct', ACKNOWLEDGEMENT: 'Acknowledge receipt', REQUEST_INFORMATION: 'Request information',
      REPLY_TO_REQUEST_INFORMATION: 'Reply to the request for information', DECISION: 'Decide', REQUEST_FOR_CHANGE_AFTER_CONSENT: 'Request a change after consent',
      REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT: 'Answer the change request', NOTIFICATION_SIGNAL: 'Notice on the consent', CREATE_MOVEMENT: 'Create a movement',
      FACILITY_COMPLETION_ARTICLE15: 'Certify completion (Art. 15)', WITHDRAWAL: 'Withdraw', CARRIER_TRANSFER: 'Take over (carrier)',
      CONSIGNEE_CERTIFICATE: 'Certify receipt (consignee)', FACILITY_CERTIFICATE: 'Certify receipt (facility)', CERTIFICATE_OF_COMPLETION: 'Certify completion',
      TAKE_BACK: 'Start a take-back', MOVEMENT_TEMPLATE: 'Change the movement data', CARRIER_TRANSPORT: 'Take over the waste (carrier)',
      CONSIGNEE_RECEPTION: 'Certify receipt (consignee)', FACILITY_RECEPTION: 'Certify receipt (facility)', FACILITY_COMPLETION: 'Certify recovery or disposal',
      MOVEMENT_SIGNAL: 'Notice on the movement', MOVEMENT_TAKE_BACK: 'Order a take-back', CREATE: 'Create', TACIT_CONSENT: 'Tacit consent',
      CONSENT_VALIDITY_EXPIRY: 'End of the consent’s validity', TAKE_BACK_COMPLETED: 'Take-back completed',
    },
    fields: { organisationId: 'Organisation', annex7: 'Annex VII document', movementTemplate: 'Movement data' },
  };
  const fallback = (table, key) => (lang === 'de' ? DE[table][key] : EN[table] && EN[table][key]) || (VALUES[key] && VALUES[key][lang === 'de' ? 1 : 0]) || words(key);
  // a state, intent or role of a kind's machine: its workflow's labels,
  // the lists of /labels.json, any other kind's, the fallback.
  function machineWord(part, list, name, kind) {
    if (!name) return '';
    const kinds = kind ? [kind, ...KINDS] : KINDS;
    for (const k of kinds) {
      const m = machines[k];
      const w = (m && m.labels && pick((m.labels[part] || {})[name])) || listWord(list + '/' + slug(k), name);
      if (w) return w;
    }
    return '';
  }
  const stateLabel = (s, kind) => machineWord('states', 'state', s, kind) || fallback('states', s);
  const intentLabel = (s, kind) => machineWord('intents', 'intent', s, kind) || fallback('intents', s);
  const roleLabel = (s) => machineWord('roles', 'role', s) || listWord('role', s) || fallback('roles', s);
  const ruleLabel = (s) => listWord('DeadlineRule', s) || listWord('rule', s) || fallback('rules', s);
  const deadlineStateLabel = (s) => listWord('DeadlineState', s) || fallback('states', s);
  const kindLabel = (s) => pick(KIND[s] && KIND[s].label) || listWord('documentKind', s) || words(s);
  const fieldLabel = (k) => (lang === 'de' ? DE.fields[k] : EN.fields[k]) || words(k);
  // propLabel: a property's label from its schema (x-labels, title), else
  // from its name.
  const propLabel = (sc, name) => pick(sc && sc['x-labels']) || (lang === 'en' && sc && sc.title) || fieldLabel(name);
  // enumWord: a value of an enumeration or code list in words.
  function enumWord(sc, v) {
    if (v === undefined || v === null || v === '') return '';
    const s = String(v);
    if (sc) {
      const w = pick((sc['x-enum-labels'] || {})[s]) || (sc['x-schema'] && listWord(sc['x-schema'], s));
      if (w) return w;
      const cl = codeList(sc);
      if (cl) {
        const c = listWord(cl, s);
        // a code read with its words (R4 – Recycling/...); a name (a state,
        // a role, a means of transport, a field of the form) is its words alone
        if (c) return /^[A-Z][A-Z0-9_]{2,}$/.test(s) || /^[a-z][A-Za-z0-9]*$/.test(s) ? c : s + ' – ' + c;
      }
    }
    // free text the schema declares (a name such as ACME, a vehicle) is
    // shown as written; only a value of an enumeration or list is a name
    if (sc && sc.type === 'string' && !sc.enum && !codeList(sc) && !sc['x-schema']) return partyNames[s] || s; // an organisation by its name
    if (/^[A-Z][A-Z0-9_]+$/.test(s) && s.length > 2) {
      if (VALUES[s]) return VALUES[s][lang === 'de' ? 1 : 0];
      for (const [table, label] of [['states', stateLabel], ['intents', intentLabel], ['roles', roleLabel], ['rules', ruleLabel]]) {
        if (DE[table][s]) return label(s);
      }
      return words(s);
    }
    return s;
  }
  // codeList names the list of /labels.json a value's words come from;
  // "wasteCode" is the list of its sibling field list's value (set by the
  // caller as sc['x-list-of']).
  function codeList(sc) {
    const cl = sc && (sc['x-code-list'] || (sc.items && sc.items['x-code-list']));
    if (!cl) return '';
    if (cl === 'wasteCode') return sc['x-list-of'] ? 'wasteCode/' + sc['x-list-of'] : '';
    return cl;
  }
  function translatePage() {
    document.documentElement.lang = lang;
    document.querySelectorAll('[data-i18n]').forEach((e) => { e.textContent = t(e.dataset.i18n); });
    document.querySelectorAll('[data-i18n-label]').forEach((e) => e.setAttribute('aria-label', t(e.dataset.i18nLabel)));
    document.title = t('app');
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
  // An error a person reads: a title, what to do, and how it looks.
  function problem(title, text, tone) {
    const e = new Error(title + (text ? ' ' + text : ''));
    e.title = title;
    e.text = text || '';
    e.tone = tone || 'danger';
    return e;
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
      if (e.name === 'AbortError') throw ended();
      // the network failed (offline, the server unreachable): said in words
      throw Object.assign(problem(t('offlineTitle'), t('offlineText'), 'danger'), { network: true });
    }
    let data = null;
    try { data = await resp.json(); } catch { data = null; }
    // aborted while its body was read: no answer, not an empty one
    if (signal.aborted) throw ended();
    return { status: resp.status, data: data || {}, headers: resp.headers };
  }
  function fail(r) {
    if (r.status >= 500) return Object.assign(problem(t('errorTitle'), t('serverError', { status: r.status })), { status: r.status, data: r.data });
    const e = problem(t('errorTitle'), (r.data && r.data.message) || t('serverError', { status: r.status }));
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
          // the session expired or was ended elsewhere: said once, the
          // person sent to the login form
          if (refreshToken === spent) endSession('expired');
          const e = fail(r);
          e.aborted = true;
          throw e;
        }
        if (refreshToken === spent) useTokens(r.data);
      }).finally(() => { refreshing = null; });
    }
    return refreshing;
  }
  // api calls an operation with a fresh access token; the answer whatever
  // its status (callers decide what an error means to them).
  async function api(path, body) {
    if (!refreshToken) throw Object.assign(new Error(t('mustLogIn')), { aborted: true });
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
    error('');
    provider = $('provider').value;
    const username = $('username').value.trim();
    const r = await call(API.login, { usernameCredentials: { username, password: $('password').value }, appToken: config.appToken });
    if (r.status !== 200) {
      // a refused password in the reader's words; anything else as the server says it
      $('login-error').textContent = r.status === 401 || r.status === 403 || r.data.code === 16 ? t('badCredentials')
        : r.status === 429 || r.data.code === 8 ? t('tooManyLogins') : t('badLogin', { msg: (r.data && r.data.message) || r.status });
      $('login-error').hidden = false;
      $('password').focus();
      return;
    }
    refreshToken = r.data.refreshToken;
    sessionNote = '';
    me.user = username;
    $('password').value = '';
    await refreshAccess();
    showSession();
    if (!location.hash || location.hash === '#/login') location.hash = '#/queue'; else route();
  }
  async function logout() {
    const at = accessToken, rt = refreshToken;
    endSession('logout');
    // End the session on the server too: RevokeRefreshToken names it by its
    // refresh token and takes the access token (no scope needed).
    if (at && rt) await call(API.revoke, { refreshToken: rt }, at).catch(() => {});
  }
  // endSession ends the session on the page; why says what the person
  // reads: 'logout', 'expired' or nothing.
  function endSession(why) {
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
    sessionNote = why || '';
    saySessionNote();
    $('username').focus();
  }
  let sessionNote = ''; // why the last session ended, said until the next login
  function saySessionNote() {
    if (sessionNote === 'logout') error(t('loggedOutText'), t('loggedOutTitle'), 'info');
    else if (sessionNote === 'expired') error(t('sessionEndedText'), t('sessionEnded'), 'warning');
    else error('');
  }
  function showSession() {
    const on = !!refreshToken;
    $('nav').hidden = !on;
    $('search').hidden = !on;
    $('logout').hidden = !on;
    $('who').hidden = !on;
    $('who').textContent = on ? t('loggedInAs', { user: me.user, org: me.org }) : '';
  }

  // --- Views -----------------------------------------------------------------
  function show(id) {
    for (const v of ['login-view', 'list-view', 'doc', 'new-view']) $(v).hidden = v !== id;
  }
  // error shows msg in the page's alert (role=alert) under a title; tone is
  // danger (default), warning or info.
  function error(msg, title, tone) {
    const box = $('error');
    box.className = 'kern-alert kern-alert--' + (tone || 'danger');
    box.querySelector('.kern-icon').className = 'kern-icon kern-icon--' + (tone || 'danger');
    $('error-title').textContent = title || t('errorTitle');
    $('error-text').textContent = msg || '';
    box.hidden = !msg;
  }
  function report(e) { // a failed action, unless its session ended
    if (e.aborted) return;
    if (e.title) error(e.text || e.message, e.title, e.tone);
    else error(e.message);
  }
  function notice(msg) { $('notice-text').textContent = msg; $('notice').hidden = !msg; }
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'text') e.textContent = v; else if (k === 'class') e.className = v; else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  // a KERN button: its words in a kern-label
  const button = (text, attrs, tone) => el('button', Object.assign({ type: 'button', class: 'kern-btn kern-btn--' + (tone || 'secondary') }, attrs || {}), el('span', { class: 'kern-label', text }));
  const cell = (attrs, ...c) => el('td', Object.assign({}, attrs, { class: 'kern-table__cell' + (attrs && attrs.class ? ' ' + attrs.class : '') }), ...c);
  const head = (text, attrs) => el('th', Object.assign({ scope: 'col', text }, attrs || {}, { class: 'kern-table__header' + (attrs && attrs.class ? ' ' + attrs.class : '') }));
  const table = (cls, heads, rows) => el('table', { class: 'kern-table ' + (cls || '') }, el('thead', {}, el('tr', { class: 'kern-table__row' }, heads)), el('tbody', { class: 'kern-table__body' }, rows));
  // dates in the reader's locale: a day (YYYY-MM-DD, read as that day
  // wherever the reader is) or a moment
  const fmtDate = (s) => {
    if (!s) return t('empty');
    const day = /^\d{4}-\d{2}-\d{2}$/.test(s);
    const d = new Date(day ? s + 'T12:00:00Z' : s);
    if (isNaN(d)) return String(s);
    return new Intl.DateTimeFormat(locale(), { year: 'numeric', month: 'short', day: 'numeric', timeZone: day ? 'UTC' : undefined }).format(d);
  };
  const fmtTime = (s) => (s ? new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(s)) : t('empty'));
  // TONE: a state's mark beside its words (colour is never the only sign)
  const TONE = {
    OVERDUE: 'bad', OBJECTED: 'bad', REJECTED: 'bad', CONSENT_CANCELLED: 'bad', EXPIRED: 'bad', LAPSED: 'bad',
    DUE_SOON: 'warn', INFORMATION_REQUESTED: 'warn', CHANGE_REQUESTED: 'warn', MET_LATE: 'warn', TAKE_BACK_ORDERED: 'warn', TAKE_BACK_INITIATED: 'warn',
    CONSENTED: 'good', COMPLETED: 'good', MET: 'good', CLOSED: 'good',
  };
  // a badge breaks between words and after a slash (Verwertung/Beseitigung), never inside a word
  const badge = (state, label) => el('span', { class: 'badge ' + (TONE[state] || ''), 'data-state': state, text: (label || stateLabel(state)).replace(/\/(?=\S)/g, '/\u200b') });

  async function route() {
    error('');
    const hash = location.hash || '#/queue';
    if (!refreshToken) { show('login-view'); return; }
    document.querySelectorAll('#nav a').forEach((a) => {
      if (hash.startsWith(a.getAttribute('href'))) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    });
    try {
      await loadKinds();
      listParent = null;
      if (hash.startsWith('#/documents?')) { // the movements of one notification
        const q = new URLSearchParams(hash.slice('#/documents?'.length));
        if (q.get('notification')) listParent = { id: q.get('notification'), number: q.get('number') || q.get('notification') };
      }
      if (hash.startsWith('#/doc/')) { // #/doc/<id>, or #/doc/<id>?history=full: every past exchange
        const [id, query] = hash.slice(6).split('?');
        await showDocument(decodeURIComponent(id), new URLSearchParams(query || '').get('history') === 'full');
      }
      else if (hash.startsWith('#/new/')) await showNew(decodeURIComponent(hash.slice(6)));
      else await showList(hash.startsWith('#/documents') ? 'documents' : 'queue');
    } catch (e) {
      if (e.status !== 401) report(e);
    }
  }

  // --- Lists -----------------------------------------------------------------
  let listMode = 'queue';
  let pageStart = 0;
  let listParent = null; // {id, number}: the list shows that notification's movements
  let listedParent = null;
  async function loadKinds() {
    if (KINDS.length) return;
    const r = await fetch('/workflows.json');
    if (!r.ok) throw fail({ status: r.status, data: {} });
    for (const k of (await r.json()).kinds) {
      if (!KIND[k.kind]) KINDS.push(k.kind);
      KIND[k.kind] = k;
    }
  }
  async function machine(kind) {
    if (!machines[kind]) {
      const r = await fetch((KIND[kind] && KIND[kind].machine) || '/workflows/' + kind.toLowerCase() + '.json');
      if (!r.ok) throw fail({ status: r.status, data: {} });
      machines[kind] = await r.json();
    }
    return machines[kind];
  }
  async function fillStates() {
    const kind = $('filter-kind').value;
    const keep = $('filter-state').value;
    const states = new Map();
    for (const k of kind ? [kind] : KINDS) (await machine(k)).states.forEach((s) => { if (!states.has(s)) states.set(s, stateLabel(s, k)); });
    $('filter-state').replaceChildren(el('option', { value: '', text: t('any') }), ...[...states].map(([s, w]) => el('option', { value: s, text: w })));
    if (states.has(keep)) $('filter-state').value = keep;
  }
  async function showList(mode) {
    error('');
    const parentID = listParent && listParent.id;
    if (mode !== listMode || parentID !== listedParent) pageStart = 0;
    listMode = mode;
    listedParent = parentID;
    $('list-parent').hidden = !listParent;
    const [before, after] = t('movementsOf').split('{number}');
    $('list-parent').replaceChildren(...(listParent ? [before, el('a', { href: '#/doc/' + encodeURIComponent(listParent.id), class: 'kern-link', text: listParent.number }), after,
      '\u00a0· ', el('a', { href: '#/documents', class: 'kern-link', text: t('allDocuments') })] : []));
    show('list-view');
    $('list-title').textContent = t(mode === 'queue' ? 'queueTitle' : 'documentsTitle');
    $('list-caption').textContent = t(mode === 'queue' ? 'queue' : 'documents');
    $('filter-kind').replaceChildren(el('option', { value: '', text: t('any') }), ...KINDS.map((k) => el('option', { value: k, text: kindLabel(k) })));
    $('filter-kind').value = filters.kind;
    await Promise.all(KINDS.map(machine));
    await fillStates();
    $('filter-state').value = filters.state;
    $('sort').value = filters.sort || (mode === 'queue' ? 'next_deadline.due_at:ASC' : 'updated_at:DESC');
    $('new-buttons').replaceChildren(...(me.kind === 'company' ? KINDS.filter((k) => KIND[k].create).map((k) =>
      el('a', { href: '#/new/' + k, class: 'kern-btn kern-btn--secondary', 'data-new': k }, el('span', { class: 'kern-label', text: t('new') + ': ' + kindLabel(k) }))) : []));
    const filter = [];
    if (filters.kind) filter.push({ path: 'kind', op: 'EQUAL', operands: [{ s: filters.kind }] });
    if (filters.state) filter.push({ path: 'state', op: 'EQUAL', operands: [{ s: filters.state }] });
    if (listParent) filter.push({ path: 'notification_id', op: 'EQUAL', operands: [{ s: listParent.id }] });
    const [path, direction] = $('sort').value.split(':');
    const data = await apiOK(face() + 'ListDocuments', { actionable: mode === 'queue', qpar: { filter, sort: [{ path, direction }, { path: 'number', direction: 'ASC' }], pageStart, pageSize: PAGE } });
    const rows = data.entries.map((e) => el('tr', { class: 'kern-table__row', 'data-id': e.documentId, 'data-number': e.number, 'data-state': e.state },
      cell({}, el('a', { href: '#/doc/' + encodeURIComponent(e.documentId), text: e.number }), el('span', { class: 'kind', text: kindLabel(e.kind) }),
        el('span', { class: 'phone' }, badge(e.state, stateLabel(e.state, e.kind)))),
      cell({ class: 'wide' }, badge(e.state, stateLabel(e.state, e.kind))),
      cell({ class: 'deadline' }, e.nextDeadline ? [badge(e.nextDeadline.state, deadlineStateLabel(e.nextDeadline.state)), ' ', ruleLabel(e.nextDeadline.rule), ' · ', fmtDate(e.nextDeadline.dueAt)] : t('empty')),
      cell({ class: 'wide' }, e.followUpIntents.map((f) => el('span', { class: 'chip', text: intentLabel(f.intent, e.kind) }))),
      cell({ class: 'wide', text: fmtDate(e.updatedAt) })));
    $('list').tBodies[0].replaceChildren(...(rows.length ? rows : [el('tr', { class: 'kern-table__row' }, cell({ colspan: 5, class: 'empty', text: t('none') }))]));
    const total = Number(data.total);
    $('page-info').textContent = total ? t('pageInfo', { from: pageStart + 1, to: pageStart + data.entries.length, total }) : '';
    $('prev').parentElement.hidden = total <= PAGE && pageStart === 0; // one page: nothing to turn
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
    else error(t('notFound', { number }), t('notFoundTitle'), 'warning');
  }

  // --- The OpenAPI description: schemas and their words ---------------------
  let openapi = null;
  async function loadOpenAPI() {
    if (openapi) return openapi;
    const r = await fetch('/openapi.json');
    if (!r.ok) throw fail({ status: r.status, data: {} });
    const text = await r.text();
    openapi = JSON.parse(text);
    // the words of codes, where the server says them (GET /labels.json
    // comes with the labels of the description)
    if (text.includes('"x-labels"')) {
      try {
        const l = await fetch('/labels.json');
        if (l.ok) lists = ((await l.json()) || {}).lists || {};
      } catch { /* the fallback words */ }
    }
    return openapi;
  }
  // resolve follows references, merges allOf and picks anyOf's named
  // branch (an enum's names rather than its number; a value rather than
  // null), keeping the property's own keys (its labels and help) over the
  // referenced schema's; x-schema names the component it came from.
  function resolve(sc, depth) {
    depth = depth || 0;
    if (!sc || typeof sc !== 'object' || depth > 20) return sc || {};
    const own = {};
    for (const [k, v] of Object.entries(sc)) if (!['$ref', 'allOf', 'anyOf', 'oneOf'].includes(k)) own[k] = v;
    let base = {};
    if (sc.$ref) {
      const name = sc.$ref.split('/').pop();
      base = Object.assign({}, resolve(openapi.components.schemas[name], depth + 1), { 'x-schema': name });
    } else if (sc.allOf) {
      const parts = sc.allOf.map((x) => resolve(x, depth + 1));
      base = Object.assign({}, ...parts);
      const props = Object.assign({}, ...parts.map((x) => x.properties || {}));
      if (Object.keys(props).length) base.properties = props;
    } else if (sc.anyOf || sc.oneOf) {
      const alts = sc.anyOf || sc.oneOf;
      const named = alts.find((x) => x.enum) || alts.find((x) => x.$ref) || alts.find((x) => x.type === 'string') || alts[0];
      base = resolve(named, depth + 1);
    }
    return Object.assign({}, base, own);
  }
  // keysOf: an object schema's properties in the form's order (x-order,
  // else the description's order).
  function keysOf(sc) {
    const props = sc.properties || {};
    // Until the description says x-order, the declaration order shows in
    // the answer's schema: its required list names every field in order.
    const twin = sc['x-schema'] && openapi.components.schemas[sc['x-schema'] + '-Output'];
    const declared = Array.isArray(sc['x-order']) ? sc['x-order'] : twin && Array.isArray(twin.required) ? twin.required : [];
    const order = declared.filter((k) => k in props);
    return [...order, ...Object.keys(props).filter((k) => !order.includes(k))];
  }
  const isQuantity = (sc) => !!(sc.properties && sc.properties.tonnes && sc.properties.cubicMetres);
  const isDecimal = (sc) => !!(sc.properties && sc.properties.units && sc.properties.nanos && Object.keys(sc.properties).length === 2);
  const isDate = (sc) => sc.type === 'string' && (sc.format === 'date' || (/YYYY-MM-DD(?!T)/.test(sc.description || '') && !/HH/.test(sc.description || '')));
  // the retrieval document's schema of a container (notification, annex7,
  // movement): what GetDocument answers
  function docSchema(container) {
    const get = openapi && openapi.paths[DIWASS + 'CompanyDocumentApi/GetDocument'];
    const resp = get && get.post && resolve(get.post.responses['200'].content['application/json'].schema);
    const doc = resp && resp.properties && resolve(resp.properties.document);
    return doc && doc.properties && doc.properties[container] ? resolve(doc.properties[container]) : {};
  }
  const propOf = (sc, k) => (sc && sc.properties && sc.properties[k] ? resolve(sc.properties[k]) : null);
  const itemsOf = (sc) => (sc && sc.items ? resolve(sc.items) : null);

  // --- A document ------------------------------------------------------------
  let current = null; // { id, kind, container, doc, intents, schema }
  let docSeq = 0; // a document opened while another loads wins
  async function showDocument(id, fullHistory) {
    show('doc');
    const seq = ++docSeq;
    // a long history's lists carry their open exchanges and the latest
    // closed ones (exchangesOmitted counts the rest): fullHistory reads
    // them whole
    const r = await api(face() + 'GetDocument', fullHistory ? { documentId: id, fullHistory: true } : { documentId: id });
    if (seq !== docSeq) return;
    if (r.status !== 200) {
      $('doc').hidden = true;
      if (r.status === 404) throw problem(t('notFoundTitle'), t('notFound', { number: '' }).replace('  ', ' '), 'warning');
      throw fail(r);
    }
    await loadOpenAPI();
    const container = Object.keys(r.data.document).find((k) => r.data.document[k]);
    const doc = r.data.document[container];
    partyInfo = Object.fromEntries((doc.partyDetails || []).map((p) => [p.organisationId, p]));
    partyNames = Object.fromEntries((doc.partyDetails || []).filter((p) => p.name).map((p) => [p.organisationId, p.name]));
    current = { id, kind: doc.kind, container, doc, intents: r.data.followUpIntents || [], schema: docSchema(container) };
    $('action-host').append($('action'));
    closeAction();
    const m = await machine(doc.kind);
    if (seq !== docSeq) return;
    $('doc-kind').textContent = kindLabel(doc.kind);
    $('doc-number').textContent = doc.number;
    $('doc-state').textContent = stateLabel(doc.state, doc.kind);
    $('doc-state').className = 'badge ' + (TONE[doc.state] || '');
    $('doc-state').dataset.state = doc.state;
    $('doc-version').textContent = doc.version;
    renderDIWASS(doc);
    $('print-result').hidden = true;
    $('doc-roles').textContent = '';
    $('intents').replaceChildren(el('span', { id: 'intents-label', class: 'label', text: t('actions') }),
      ...(current.intents.length ? current.intents.map((f) => button(intentLabel(f.intent, doc.kind) + (f.dueAt ? ' · ' + t('due') + ' ' + fmtDate(f.dueAt) : ''), { 'data-intent': f.intent }, 'primary'))
        : [el('span', { class: 'empty', text: t('noActions') })]));
    $('intents').querySelectorAll('button').forEach((b) => b.addEventListener('click', () => openAction(b.dataset.intent).catch(report)));
    // A movement belongs to a notification: its parties are the
    // notification's (and the movement's own carriers).
    let parent = null;
    if (doc.notificationId) {
      const pr = await api(face() + 'GetDocument', { documentId: doc.notificationId });
      if (seq !== docSeq) return;
      if (pr.status === 200) parent = pr.data.document.notification;
      for (const p of (parent && parent.partyDetails) || []) {
        if (!partyInfo[p.organisationId]) partyInfo[p.organisationId] = p;
        if (p.name && !partyNames[p.organisationId]) partyNames[p.organisationId] = p.name;
      }
    }
    $('doc-parent').replaceChildren(...(parent ? [t('under') + ' ', el('a', { href: '#/doc/' + encodeURIComponent(parent.id), text: kindLabel(parent.kind) + ' ' + parent.number })] : []));
    renderContent(doc, m);
    // every past exchange and time limit shown: say so, and lead back
    if (fullHistory) $('content').prepend(el('p', { id: 'history-full' }, t('historyFull'), ' ',
      el('a', { href: '#/doc/' + encodeURIComponent(id), class: 'kern-link', text: t('historyLatest') })));
    renderParties(doc, parent);
    renderMovements(doc);
    renderDeadlines(doc.deadlines || [], Number(doc.deadlinesOmitted || 0), '#/doc/' + encodeURIComponent(doc.id) + '?history=full');
    drawDiagram(m, doc.state);
    await renderTimeline(id, doc);
  }

  // renderDIWASS shows an Annex VII document's exchange with DIWASS under
  // its state: where it stands in words, DIWASS's number, and why it was
  // refused or is uncertain (nothing for a document never exchanged).
  const DIWASS_TONE = { SENT: 'good', PENDING: 'warn', REJECTED: 'bad', UNCERTAIN: 'bad' };
  function renderDIWASS(doc) {
    const x = doc.metadata && doc.metadata.diwass;
    const host = $('doc-diwass');
    if (!x || !x.state || x.state === 'NOT_CONNECTED') {
      host.hidden = true;
      host.replaceChildren();
      return;
    }
    const line = [el('span', { class: 'label', text: 'DIWASS' }), ' ', el('span', { class: 'badge ' + (DIWASS_TONE[x.state] || ''), 'data-diwass': x.state, text: listWord('diwassState', x.state) })];
    if (x.documentNumber) line.push(' ', el('span', { class: 'diwass-number', text: x.documentNumber }));
    if (x.sentAt) line.push(' ', el('span', { class: 'muted', text: t('diwassSentAt', { at: fmtTime(x.sentAt) }) }));
    if (x.state !== 'SENT' && Number(x.attempts) > 0) line.push(' ', el('span', { class: 'muted', text: Number(x.attempts) === 1 ? t('diwassAttempt1') : t('diwassAttempts', { n: x.attempts }) }));
    const out = [el('p', { class: 'doc-meta' }, line)];
    if (x.lastError) out.push(el('p', { class: 'kern-body diwass-error' }, el('span', { class: 'label', text: t('diwassError') }), ' ', x.lastError));
    for (const n of x.notSent || []) out.push(el('p', { class: 'kern-body muted', text: t('diwassNotSent', { intent: intentLabel(n.intent, doc.kind), at: fmtTime(n.at) }) }));
    host.replaceChildren(...out);
    host.hidden = false;
  }

  // The content: the document's own fields, without the blocks that only
  // carry an intent's input (those are the forms) and the ids a person
  // does not read.
  const META = new Set(['id', 'number', 'kind', 'state', 'version', 'deadlines', 'movements', 'createdAt', 'updatedAt', 'proposedTerms', 'notificationId', 'metadata', 'takeBackOf', 'partyDetails', 'exchangesOmitted', 'deadlinesOmitted']);
  const PRIMARY = new Set(['SUBMISSION', 'CORRECTION', 'MOVEMENT_TEMPLATE']);
  // legalBasis is a deadline's legal basis in the page's language (the
  // server says it in English: "Art. 9(1) Regulation (EU) 2024/1157")
  const legalBasis = (text) => (lang === 'de' ? text.replace(/Regulation \(EU\)/g, 'Verordnung (EU)').replace(/ and /g, ' und ')
    .replace(/service interface section/g, 'Dienstschnittstelle, Abschnitt') : text);
  function renderContent(doc, m) {
    const inputs = new Set(m.intents.filter((i) => i.block && !PRIMARY.has(i.name)).map((i) => i.block));
    const out = [];
    const sc = current.schema;
    if (doc.proposedTerms && doc.notification) out.push(changeTable(doc.notification, doc.proposedTerms, propOf(sc, 'notification')));
    for (const k of orderedKeys(doc, sc)) {
      const v = doc[k];
      if (META.has(k) || inputs.has(k) || isEmpty(v)) continue;
      const ps = propOf(sc, k);
      // a list of past exchanges that leaves the older closed ones out
      // says how many it lists, and leads to all of them
      const omitted = Number((doc.exchangesOmitted && doc.exchangesOmitted[k]) || 0);
      const all = Array.isArray(v) ? fmtNumber(v.length + omitted) : '';
      out.push(el('details', { class: 'section', open: true, 'data-section': k }, el('summary', { text: propLabel(ps, k) }),
        ...(omitted ? [el('p', { class: 'exchanges-omitted' }, t('exchangesOmitted', { listed: fmtNumber(v.length), all }), ' ',
          el('a', { href: '#/doc/' + encodeURIComponent(doc.id) + '?history=full', class: 'kern-link', text: t('exchangesAll', { n: all }) }))] : []),
        numberedFrom(value(v, ps), omitted + 1)));
    }
    $('content').replaceChildren(...out);
  }
  // numberedFrom: a list that leaves out the oldest items numbers the
  // first it shows as what it is (the 4th of 14, not the 1st); the left
  // out are always the oldest, as only the latest exchange of a list can
  // be open
  function numberedFrom(node, start) {
    if (start > 1 && node.tagName === 'OL') node.setAttribute('start', String(start));
    return node;
  }
  // orderedKeys: a value's keys in its schema's form order (x-order), else
  // as the server sent them (its declaration order)
  function orderedKeys(v, sc) {
    const order = sc && Array.isArray(sc['x-order']) ? sc['x-order'].filter((k) => k in v) : [];
    return [...order, ...Object.keys(v).filter((k) => !order.includes(k))];
  }
  function isEmpty(v) {
    if (v === null || v === undefined || v === '' || v === false) return true;
    if (Array.isArray(v)) return v.length === 0;
    if (typeof v === 'object') return Object.values(v).every(isEmpty);
    return false;
  }
  // decimal reads a wire Decimal (units and nanos; zero ones absent, int64
  // as strings) as a number
  const decimal = (x) => Number((x && x.units) || 0) + Number((x && x.nanos) || 0) / 1e9;
  const fmtNumber = (n) => n.toLocaleString(locale(), { maximumFractionDigits: 6 });
  function quantity(v) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    if ('tonnes' in v || 'cubicMetres' in v) {
      const parts = [];
      if (v.tonnes) parts.push(fmtNumber(decimal(v.tonnes)) + '\u00a0t');
      if (v.cubicMetres) parts.push(fmtNumber(decimal(v.cubicMetres)) + '\u00a0m³');
      return parts.join(', ') || t('empty');
    }
    return null;
  }
  // partyNames: the open document's parties by organisation id, with their
  // names as the document recorded them (partyDetails)
  let partyNames = {};
  let partyInfo = {}; // organisation id → its details (address, contact) as recorded
  const partyName = (p) => (p && (p.name || p.organisationName || partyNames[p.organisationId] || p.organisationId)) || '';
  // value renders a value of the document as a person reads it, with the
  // words of its schema sc where the description gives them.
  function value(v, sc) {
    if (v === null || v === undefined || v === '') return el('span', { class: 'empty', text: t('empty') });
    if (typeof v === 'boolean') return document.createTextNode(v ? t('yes') : t('no'));
    if (typeof v !== 'object') {
      const s = String(v);
      if (/^\d{4}-\d{2}-\d{2}T/.test(s)) return document.createTextNode(fmtTime(s));
      if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return document.createTextNode(fmtDate(s));
      return document.createTextNode(enumWord(sc, s));
    }
    const q = quantity(v);
    if (q) return document.createTextNode(q);
    if (isDecimal(sc || {}) || ('units' in v && Object.keys(v).every((k) => k === 'units' || k === 'nanos'))) return document.createTextNode(fmtNumber(decimal(v)));
    if (Array.isArray(v)) {
      let item = itemsOf(sc);
      // a list of codes carries its code list on the list or on its items
      if (sc && sc['x-code-list'] && !(item && item['x-code-list'])) item = Object.assign({}, item, { 'x-code-list': sc['x-code-list'] });
      if (v.every((x) => typeof x !== 'object' || x === null)) return document.createTextNode(v.map((x) => (typeof x === 'string' && /^\d{4}-\d{2}-\d{2}/.test(x) ? fmtDate(x) : enumWord(item, x))).join(', '));
      if (v.every((x) => x && 'organisationId' in x && Object.keys(x).every((k) => ['organisationId', 'name'].includes(k)))) return document.createTextNode(v.map(partyName).join(', '));
      return el('ol', {}, v.map((x) => el('li', {}, value(x, item))));
    }
    if ('organisationId' in v && Object.entries(v).every(([k, x]) => ['organisationId', 'name'].includes(k) || isEmpty(x))) return document.createTextNode(partyName(v));
    const dl = el('dl', { class: 'kv' });
    for (const k of orderedKeys(v, sc)) {
      const x = v[k];
      if (isEmpty(x) || k === 'id' || k === 'documentId') continue;
      let ps = propOf(sc, k);
      if (ps && codeList(ps) === '' && (ps['x-code-list'] === 'wasteCode') && v.list) ps = Object.assign({}, ps, { 'x-list-of': v.list });
      dl.append(el('dt', { text: propLabel(ps, k) }), el('dd', {}, value(x, ps)));
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
  function changeTable(inForce, proposed, sc) {
    const a = flatten(inForce, '', {});
    const b = flatten(proposed, '', {});
    const rows = [];
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      if (JSON.stringify(a[k]) === JSON.stringify(b[k])) continue;
      let s = sc;
      const label = k.split('.').map((p) => { const ps = propOf(s, p); s = ps; return propLabel(ps, p); }).join(' › ');
      rows.push(el('tr', { class: 'kern-table__row', 'data-field': k }, el('th', { scope: 'row', class: 'kern-table__header', text: label }), cell({}, value(a[k], s)), cell({ class: 'changed' }, value(b[k], s))));
    }
    return el('details', { class: 'section', open: true, 'data-section': 'proposedTerms' }, el('summary', { text: t('proposedChange') }),
      table('diff', [head(t('field')), head(t('inForce')), head(t('proposed'))], rows));
  }
  function renderParties(doc, parent) {
    const content = Object.assign({}, parent ? parent.notification : {}, doc.notification || doc.annex7 || {});
    if (doc.movementTemplate && doc.movementTemplate.carriers) content.carriers = doc.movementTemplate.carriers;
    const sc = propOf(current.schema, doc.notification ? 'notification' : doc.annex7 ? 'annex7' : 'movementTemplate') || {};
    const rows = [];
    const add = (label, p) => {
      if (!p || !p.organisationId) return;
      const d = partyInfo[p.organisationId] || {};
      const a = d.address || {};
      const place = [a.postalCode, a.city].filter(Boolean).join(' ');
      const country = a.country ? (listWord('country', a.country) || a.country) : '';
      const lines = [a.street, [place, country].filter(Boolean).join(', '), d.contactPerson, d.telephone, d.email].filter(Boolean);
      rows.push(el('dt', { text: label }), el('dd', {}, el('span', { class: 'party-name', text: partyName(p) }), p.organisationId === me.org ? el('strong', { text: ' (' + t('you') + ')' }) : null,
        ...lines.map((l) => el('span', { class: 'party-line', text: l }))));
    };
    for (const role of ['notifier', 'arranger', 'consignee', 'facility']) add(propLabel(propOf(sc, role), role), content[role]);
    for (const role of ['producers', 'carriers']) (content[role] || []).forEach((p) => add(propLabel(propOf(sc, role), role), p));
    const ca = content.competentAuthorities || {};
    add(roleLabel('AUTHORITY_DISPATCH'), ca.dispatch);
    add(roleLabel('AUTHORITY_DESTINATION'), ca.destination);
    (ca.transit || []).forEach((p) => add(roleLabel('AUTHORITY_TRANSIT'), p));
    $('parties').replaceChildren(...rows);
  }
  function renderMovements(doc) {
    const mv = doc.movements;
    $('movements-card').hidden = !mv;
    if (!mv) return;
    // one sentence: "1 of 3 shipments made, 2 left; 10 t shipped, 90 t
    // left." (zero counts are absent from the answer)
    const total = Number((doc.notification && doc.notification.numberOfShipments) || 0);
    // a zero quantity may come without its unit: the notified one then
    const unitOf = (q) => (q && ['tonnes', 'cubicMetres'].find((u) => u in q)) || null;
    const unit = unitOf(mv.quantityUsed) || unitOf(mv.quantityLeft) || unitOf(doc.notification && doc.notification.totalQuantity) || 'tonnes';
    const inUnit = (q) => quantity(unitOf(q) ? q : { [unit]: {} }) || fmtNumber(0) + (unit === 'tonnes' ? '\u00a0t' : '\u00a0m³');
    const sentence = t('movementsSentence', {
      made: Number(mv.count || 0), left: Number(mv.shipmentsLeft || 0), total: total || Number(mv.count || 0) + Number(mv.shipmentsLeft || 0),
      shipped: inUnit(mv.quantityUsed), remainder: inUnit(mv.quantityLeft),
    });
    const entries = mv.entries || [];
    // a large notification lists a part of its movements (at most 50): say
    // so, and lead to the list of all of them
    const omitted = Number(mv.entriesOmitted || 0);
    const all = '#/documents?notification=' + encodeURIComponent(doc.id) + '&number=' + encodeURIComponent(doc.number);
    $('movements').replaceChildren(el('p', { id: 'movements-summary', text: sentence }),
      ...(omitted ? [el('p', { id: 'movements-omitted' }, t('movementsOmitted', { listed: fmtNumber(entries.length), all: fmtNumber(entries.length + omitted) }), ' ',
        el('a', { href: all, class: 'kern-link', text: t('movementsAll', { n: fmtNumber(entries.length + omitted) }) }))] : []),
      ...(entries.length ? [table('', [head(t('movement')), head(t('state')), head(t('quantity'))],
        entries.map((e) => el('tr', { class: 'kern-table__row', 'data-id': e.id },
          cell({}, el('a', { href: '#/doc/' + encodeURIComponent(e.id), text: e.number }), el('small', { text: e.actualDateOfShipment ? t('shippedOn') + ' ' + fmtDate(e.actualDateOfShipment) : '' })),
          cell({}, badge(e.state, stateLabel(e.state, 'MOVEMENT'))),
          cell({ text: quantity(e.actualQuantity || e.quantity || {}) || t('empty') }))))] : []));
  }
  function renderDeadlines(list, omitted, all) {
    if (!list.length && !omitted) { $('deadlines').replaceChildren(el('p', { class: 'empty', text: t('none') })); return; }
    // a long history lists the running time limits and the latest ended
    // ones: say so, and lead to all of them
    const n = fmtNumber(list.length + omitted);
    $('deadlines').replaceChildren(...(omitted ? [el('p', { id: 'deadlines-omitted' }, t('deadlinesOmitted', { listed: fmtNumber(list.length), all: n }), ' ',
      el('a', { href: all, class: 'kern-link', text: t('deadlinesAll', { n }) }))] : []), table('deadline-table', [head(t('rule')), head(t('state')), head(t('due')), head(t('remaining'))],
      list.map((d) => el('tr', { class: 'kern-table__row', 'data-rule': d.rule, 'data-state': d.state },
        cell({}, ruleLabel(d.rule), d.legalBasis ? el('small', { text: legalBasis(d.legalBasis) }) : null,
          d.party ? el('small', { text: (partyNames[d.party] || d.party) + (d.partyRole ? ' · ' + roleLabel(d.partyRole) : '') }) : null),
        cell({ 'data-label': t('state') }, badge(d.state, deadlineStateLabel(d.state))), cell({ 'data-label': t('due'), text: fmtDate(d.dueAt) }),
        cell({ class: 'remaining', 'data-label': t('remaining'), text: remaining(d), title: d.daysLeft != null ? t(d.daysLeft < 0 ? 'daysLate' : 'calendarDays', { n: Math.abs(d.daysLeft) }) : null })))));
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
    return t('empty');
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
      $('export-state').dataset.state = r.state;
      if (r.state === 'FAILED' || r.state === 'CANCELLED') { $('export-state').textContent = t('exportFailed'); return; }
      $('export-state').textContent = t('exportProgress', { state: t(r.state === 'QUEUED' ? 'exportQueued' : 'exportRunning'), done: r.progress.done, total: r.progress.total });
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

  // The timeline: each entry from its structured fields in words (who
  // fired which intent when, from which state to which); a decision with
  // its type, conditions and validity read from the document's record of
  // it, never the server's English summary.
  async function renderTimeline(id, doc) {
    const r = await api(face() + 'GetDocumentHistory', { documentId: id });
    if (r.status !== 200) { $('timeline').replaceChildren(); $('chain').textContent = ''; return; }
    const h = r.data;
    $('chain').className = 'chain ' + (h.chain.verified ? 'ok' : 'broken');
    $('chain').replaceChildren(...(h.chain.verified ? [t('chainOk') + ' ', el('code', { text: h.chain.head })] : [t('chainBroken', { row: h.chain.brokenAt, reason: h.chain.reason })]));
    const decisions = (doc.decisions || []).slice();
    const decisionSc = itemsOf(propOf(current.schema, 'decisions'));
    $('timeline').replaceChildren(...h.entries.slice().reverse().map((e) => {
      const who = e.actorOrganisationId ? (e.actor ? `${e.actor} (${e.actorOrganisationId})` : e.actorOrganisationId) : t(e.intent === 'DIWASS_EXCHANGE' ? 'systemDIWASS' : 'system');
      let detail = null;
      if (e.intent === 'DECISION' || e.intent === 'TACIT_CONSENT') {
        const at = new Date(e.at).getTime();
        const d = decisions.find((x) => x.at && Math.abs(new Date(x.at).getTime() - at) < 1000 && (!e.actorOrganisationId || x.authority === e.actorOrganisationId));
        if (d) {
          const n = (d.conditions || []).length;
          const until = d.validUntil || (d.type !== 'OBJECTION' && doc.consentValidUntil);
          detail = t(until ? 'decisionDetail' : 'decisionNoDate', { type: enumWord(propOf(decisionSc, 'type'), d.type), conditions: n === 0 ? t('conditions0') : n === 1 ? t('condition1') : t('conditionsN', { n }), until: fmtDate(until) });
        }
      }
      return el('li', { 'data-seq': e.seq, 'data-intent': e.intent }, el('time', { datetime: e.at, text: fmtTime(e.at) }),
        el('span', { class: 'what' }, el('strong', { text: intentLabel(e.intent, doc.kind) }), ' · ', who),
        el('span', { class: 'what' }, e.fromState ? stateLabel(e.fromState, doc.kind) + ' → ' : '', stateLabel(e.toState, doc.kind)),
        detail ? el('span', { class: 'what hint', text: detail }) : null);
    }));
  }

  // The state diagram: states in layers by their distance from the initial
  // state, the current one filled and marked; the scheduler's transitions
  // dashed. It scales to its card (viewBox, width 100%).
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
    const W = 160, H = 48, GX = 14, GY = 30;
    const width = Math.max(...layers.map((l) => (l ? l.length : 0))) * (W + GX) + GX + 40;
    const pos = {};
    layers.forEach((l, i) => (l || []).forEach((st, j) => { pos[st] = { x: GX + j * (W + GX), y: 8 + i * (H + GY) }; }));
    const height = layers.length * (H + GY) + 8;
    svg.replaceChildren();
    svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
    svg.removeAttribute('width');
    svg.removeAttribute('height');
    svg.setAttribute('aria-label', `${t('diagram')}, ${kindLabel(m.kind)}: ${stateLabel(state, m.kind)}`);
    const defs = s('defs', {});
    const marker = s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 6, markerHeight: 6, orient: 'auto-start-reverse' });
    marker.append(s('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#6E7597' }));
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
      p.append(s('title', {}, intentLabel(tr.intent, m.kind)));
      svg.append(p);
    }
    // a state's words on up to two lines of its box
    const lines = (text) => {
      const out = [''];
      for (const w of text.replace(/\/(?=\S)/g, '/ ').split(' ').map((x) => x.replace(/\/$/, '/\u200b'))) {
        const last = out[out.length - 1];
        const glue = last.endsWith('\u200b') ? '' : ' ';
        if (last && (last + glue + w).length > 21) out.push(w); else out[out.length - 1] = last ? last + glue + w : w;
      }
      return out.length > 3 ? [out[0], out[1], out.slice(2).join(' ')] : out;
    };
    for (const st of m.states) {
      const g = s('g', { class: 'state' + (st === state ? ' current' : '') + (m.final.includes(st) ? ' final' : ''), 'data-state': st });
      g.append(s('rect', { x: pos[st].x, y: pos[st].y, width: W, height: H, rx: 6 }));
      const ls = lines((st === state ? '● ' : '') + stateLabel(st, m.kind));
      const text = s('text', { x: pos[st].x + W / 2, y: pos[st].y + H / 2 + 4 - (ls.length - 1) * 7, 'text-anchor': 'middle' });
      ls.forEach((l, i) => text.append(s('tspan', { x: pos[st].x + W / 2, dy: i ? 14 : 0 }, l)));
      g.append(text);
      svg.append(g);
    }
  }

  // --- A new document ----------------------------------------------------------
  // What a company creates from the console: a document of a kind that
  // /workflows.json gives a create (the kind's create operation, the form of
  // its content block), as a draft; filing it is then the draft's
  // SUBMISSION. The creating organisation's role, where the block has a
  // field of that name (notifier, arranger), is filled with the caller's.
  async function showNew(kind) {
    const c = KIND[kind] && KIND[kind].create;
    if (!c) throw problem(t('notFoundTitle'), '', 'warning');
    show('new-view');
    $('new-title').textContent = t('new') + ': ' + kindLabel(kind);
    $('new-host').append($('action'));
    current = null;
    const schema = await schemaOf(c.operation, c.block);
    action = { create: kind, intent: 'CREATE', block: c.block, operation: c.operation, schema };
    $('action-title').textContent = kindLabel(kind);
    $('action-fields').replaceChildren(field(schema, c.block, c.block, Object.fromEntries(c.roles.map((r) => [r.toLowerCase(), { organisationId: me.org }])), true));
    $('action-hint').hidden = !$('action-fields').querySelector('[aria-required="true"]');
    $('action-errors').hidden = true;
    $('stale').hidden = true;
    $('action').hidden = false;
    $('action-fields').querySelector('input, select, textarea').focus();
  }

  // --- Acting ----------------------------------------------------------------
  // An intent's form is generated from the schema of its block in the
  // OpenAPI description (the request of the intent's own operation), in
  // the form's order (x-order), nested objects as fieldsets, pre-filled
  // with the block as the document carries it. Submitting sends the
  // document as read with the block filled in (SetByIntent); a movement's
  // intents go to their own operations, as SetByIntent refuses movements.
  async function schemaOf(operation, block) {
    await loadOpenAPI();
    const op = openapi.paths[operation] && openapi.paths[operation].post;
    const req = op && op.requestBody && resolve(op.requestBody.content['application/json'].schema);
    if (req && req.properties && req.properties[block]) return resolve(req.properties[block]);
    // An intent executed by SetByIntent itself (WITHDRAWAL, DIWASS_…): its
    // block is a property of the document SetByIntent takes, in the
    // request's form (only the fields tagged required are), else of the
    // retrieval document GetDocument answers.
    const sent = req && req.properties && req.properties.document && resolve(req.properties.document);
    for (const container of Object.values((sent && sent.properties) || {})) {
      const c = resolve(container);
      if (c.properties && c.properties[block]) return resolve(c.properties[block]);
    }
    const get = openapi.paths[operation.replace(/[^/]+$/, 'GetDocument')];
    const resp = get && get.post && get.post.responses['200'] && resolve(get.post.responses['200'].content['application/json'].schema);
    const doc = resp && resp.properties && resolve(resp.properties.document);
    for (const container of Object.values((doc && doc.properties) || {})) {
      const c = resolve(container);
      if (c.properties && c.properties[block]) return resolve(c.properties[block]);
    }
    return { type: 'object', properties: {} };
  }

  let action = null; // { intent, block, operation, schema, create }
  let pendingNotice = ''; // said once the next view shows
  async function openAction(intent, values) {
    const f = current.intents.find((x) => x.intent === intent);
    if (!f) return;
    const schema = await schemaOf(f.operation, f.block);
    action = { intent, block: f.block, operation: f.operation, schema };
    $('action-title').textContent = intentLabel(intent, current.kind) + ' — ' + current.doc.number;
    const prefill = values || current.doc[f.block];
    $('action-fields').replaceChildren(field(schema, f.block, f.block, prefill, true));
    $('action-hint').hidden = !$('action-fields').querySelector('[aria-required="true"]');
    $('action-errors').hidden = true;
    $('stale').hidden = true;
    $('action').hidden = false;
    const first = $('action-fields').querySelector('input, select, textarea');
    (first || $('action-submit')).focus();
  }
  function closeAction() { action = null; $('action').hidden = true; }
  // fillAgain renders the open new document's form again with values.
  function fillAgain(values) {
    $('action-fields').replaceChildren(field(action.schema, action.block, action.block, values, true));
  }

  // Ids a person does not fill: the page knows them, or the server gives
  // them.
  const INTERNAL = new Set(['meta', 'metadata', 'id', 'documentId', 'notificationId', 'version', 'sequenceNumber', 'takeBackOf']);
  let uid = 0;
  const reqMark = () => el('span', { class: 'req', 'aria-hidden': 'true', text: ' *' });
  // field renders schema sc at data path path (the block's name first);
  // label is the words it is known by, required whether the schema
  // requires it.
  function field(sc, name, path, v, top, label, required) {
    sc = resolve(sc);
    const id = 'f' + (++uid);
    label = label || propLabel(sc, name);
    const help = pick(sc['x-help']); // help for the person; description is the developers'
    const hint = help ? el('div', { class: 'kern-hint', id: id + '-hint', text: help }) : null;
    const err = el('p', { class: 'kern-error field-error', 'data-for': path, id: id + '-err' });
    const described = [hint ? id + '-hint' : '', id + '-err'].join(' ').trim();
    if (isQuantity(sc) || isDecimal(sc)) return quantityField(sc, id, label, path, v, hint, err, described, required);
    if (sc.type === 'object' || sc.properties) {
      // a block read from a response: what a request must carry
      const req = new Set(sc['x-input-required'] || sc.required || []);
      const keys = keysOf(sc).filter((k) => !INTERNAL.has(k));
      // a party named by its organisation alone: one field, the party's words
      if (!top && keys.length === 1 && keys[0] === 'organisationId') {
        return el('div', { 'data-path': path, 'data-type': 'object' },
          field(sc.properties.organisationId, 'organisationId', path + '.organisationId', v ? v.organisationId : undefined, false, label, required || req.has('organisationId')));
      }
      const inner = keys.map((k) => {
        let ps = resolve(sc.properties[k]);
        if (ps['x-code-list'] === 'wasteCode' || (ps.items && ps.items['x-code-list'] === 'wasteCode')) ps = Object.assign({}, ps, { 'x-list-of': v && v.list });
        return field(ps, k, path + '.' + k, v ? v[k] : undefined, false, null, req.has(k));
      });
      if (top) return el('div', { 'data-path': path, 'data-type': 'object', class: 'kern-fieldset__body' }, inner, err);
      return el('fieldset', { 'data-path': path, 'data-type': 'object', class: 'kern-fieldset', 'aria-describedby': described },
        el('legend', { class: 'kern-label' }, label, required ? reqMark() : null), hint, el('div', { class: 'kern-fieldset__body' }, inner), err);
    }
    if (sc.type === 'array') {
      const item = resolve(sc.items || {});
      if (sc['x-code-list'] && !item['x-code-list']) item['x-code-list'] = sc['x-code-list'];
      const list = el('div', { class: 'list kern-fieldset__body', 'data-path': path, 'data-type': 'array' });
      const addItem = (x) => {
        const n = list.querySelectorAll(':scope > .list-item').length;
        const row = el('div', { class: 'list-item' }, field(item, name, path + '.' + n, x, false, t('item', { label, n: n + 1 })),
          button(t('remove'), { 'aria-label': t('remove') + ': ' + t('item', { label, n: n + 1 }) }));
        row.lastChild.addEventListener('click', () => { row.remove(); renumber(list, path, label); (list.querySelector('button') || $('action-submit')).focus(); });
        list.insertBefore(row, list.lastChild);
      };
      list.append(button(t('add') + ': ' + label, { 'data-add': path }));
      list.lastChild.addEventListener('click', () => { addItem(undefined); const rows = list.querySelectorAll(':scope > .list-item'); const last = rows[rows.length - 1]; const i = last && last.querySelector('input, select, textarea'); if (i) i.focus(); });
      (Array.isArray(v) ? v : []).forEach(addItem);
      return el('fieldset', { class: 'kern-fieldset', 'aria-describedby': described },
        el('legend', { class: 'kern-label' }, label, required ? reqMark() : null), hint, list, err);
    }
    let input;
    const cls = 'kern-form-input__input';
    const codes = codeList(sc) ? lists[codeList(sc)] : null;
    const enumValues = sc.enum ? sc.enum.filter((x) => !/_UNSPECIFIED$/.test(x)) : codes && Object.keys(codes).length <= 200 ? Object.keys(codes) : null;
    let wrapSelect = false;
    if (enumValues) {
      input = el('select', { id, class: 'kern-form-input__select' }, el('option', { value: '', text: t('chooseOne') }),
        enumValues.map((x) => el('option', { value: x, text: enumWord(sc, x) })));
      if (v !== undefined && v !== null && !/_UNSPECIFIED$/.test(String(v))) input.value = v;
      wrapSelect = true;
    } else if (sc.type === 'boolean') {
      input = el('input', { id, type: 'checkbox', class: 'kern-form-check__checkbox' });
      input.checked = !!v;
    } else if (sc.type === 'integer' || sc.type === 'number') {
      input = el('input', { id, class: cls, type: 'text', inputmode: sc.type === 'integer' ? 'numeric' : 'decimal' });
      if (v !== undefined && v !== null) input.value = v;
    } else if (isDate(sc)) {
      input = el('input', { id, class: cls, type: 'date' });
      if (v) input.value = v;
    } else if ((sc.maxLength || 0) > 200) {
      input = el('textarea', { id, class: cls, rows: 3 });
      if (v) input.value = v;
    } else {
      input = el('input', { id, class: cls, type: 'text' });
      if (v !== undefined && v !== null) input.value = v;
      if (codes) { // a long code list: typed, with its codes suggested
        const dl = el('datalist', { id: id + '-codes' }, Object.keys(codes).map((c) => el('option', { value: c, label: listWord(codeList(sc), c) })));
        input.setAttribute('list', id + '-codes');
        input.after(dl);
      }
    }
    input.dataset.path = path;
    input.dataset.type = sc.enum || enumValues ? 'enum' : (sc.type || 'string');
    input.setAttribute('aria-describedby', described);
    if (required) { input.required = true; input.setAttribute('aria-required', 'true'); }
    const lab = el('label', { for: id, class: 'kern-label' }, label, required ? reqMark() : null);
    if (sc.type === 'boolean') return el('div', { class: 'kern-form-check field' }, input, lab, hint, err);
    const box = wrapSelect ? el('div', { class: 'kern-form-input__select-wrapper' }, input) : input;
    const list = input.getAttribute('list') ? input.nextSibling : null;
    return el('div', { class: 'kern-form-input field' }, lab, hint, box, list, err);
  }
  // quantityField: one decimal input and its unit (a quantity), or the
  // decimal alone; the wire's units and nanos are never shown.
  function quantityField(sc, id, label, path, v, hint, err, described, required) {
    const quantityUnits = isQuantity(sc);
    let unit = 'tonnes', n = null;
    if (quantityUnits && v) {
      unit = v.cubicMetres && !v.tonnes ? 'cubicMetres' : 'tonnes';
      if (v[unit]) n = decimal(v[unit]);
    } else if (v) n = decimal(v);
    const input = el('input', { id, class: 'kern-form-input__input', type: 'text', inputmode: 'decimal', autocomplete: 'off', 'data-path': path, 'data-type': quantityUnits ? 'quantity' : 'decimal', 'aria-describedby': described });
    if (n !== null) input.value = n.toLocaleString(locale(), { maximumFractionDigits: 9, useGrouping: false });
    if (required) { input.required = true; input.setAttribute('aria-required', 'true'); }
    const parts = [el('label', { for: id, class: 'kern-label' }, label, required ? reqMark() : null), hint];
    if (!quantityUnits) return el('div', { class: 'kern-form-input field' }, parts, input, err);
    const sel = el('select', { id: id + '-unit', class: 'kern-form-input__select', 'data-unit-for': path, 'aria-label': t('unit') + ': ' + label },
      el('option', { value: 'tonnes', text: t('tonnes') }), el('option', { value: 'cubicMetres', text: t('cubicMetres') }));
    sel.value = unit;
    return el('div', { class: 'kern-form-input field' }, parts, el('div', { class: 'quantity' }, input, el('div', { class: 'kern-form-input__select-wrapper' }, sel)), err);
  }
  // parseDecimal reads "12.5" or, in German, "12,5" (a comma with no point
  // is the decimal comma in either language) as the wire's Decimal.
  function parseDecimal(s) {
    let x = String(s).trim().replace(/\s|\u00a0/g, '');
    if (x.includes(',') && !x.includes('.')) x = x.replace(',', '.');
    else if (lang === 'de' && x.includes(',') && x.includes('.')) x = x.replace(/\./g, '').replace(',', '.');
    else x = x.replace(/,/g, '');
    if (!/^\d+(\.\d{1,9})?$/.test(x)) return null;
    const [whole, frac = ''] = x.split('.');
    const out = {};
    if (Number(whole)) out.units = String(Number(whole));
    const nanos = Number((frac + '000000000').slice(0, 9));
    if (nanos) out.nanos = nanos;
    return out;
  }
  function renumber(list, path, label) {
    list.querySelectorAll(':scope > .list-item').forEach((row, i) => {
      row.querySelectorAll('[data-path], .field-error[data-for]').forEach((e) => {
        const key = e.dataset.path !== undefined ? 'path' : 'for';
        const rest = e.dataset[key].slice(path.length + 1).replace(/^\d+/, String(i));
        e.dataset[key] = path + '.' + rest;
      });
      const lab = row.querySelector('label, legend');
      if (lab && lab.firstChild && lab.firstChild.nodeType === 3) lab.firstChild.textContent = t('item', { label, n: i + 1 });
      row.lastChild.setAttribute('aria-label', t('remove') + ': ' + t('item', { label, n: i + 1 }));
    });
  }
  // collect reads the form back into the block's JSON; bad reports a
  // value it cannot read (a number that is none).
  function collect(node, bad) {
    const type = node.dataset.type;
    if (type === 'object') {
      const out = {};
      for (const child of node.querySelectorAll('[data-path]')) {
        if (parentOf(child) !== node) continue;
        const k = child.dataset.path.split('.').pop();
        const x = collect(child, bad);
        if (x !== undefined) out[k] = x;
      }
      // an optional object left empty is absent
      return Object.keys(out).length || node.parentElement === $('action-fields') ? out : undefined;
    }
    if (type === 'array') {
      const out = [];
      for (const row of node.querySelectorAll(':scope > .list-item')) {
        const child = row.querySelector('[data-path]');
        const x = collect(child, bad);
        if (x !== undefined) out.push(x);
      }
      return out;
    }
    if (type === 'boolean') return node.checked;
    if (node.value === '') return undefined;
    if (type === 'quantity' || type === 'decimal') {
      const d = parseDecimal(node.value);
      if (!d) { bad.push({ field: node.dataset.path, message: t('invalidNumber') }); return undefined; }
      if (type === 'decimal') return d;
      const unit = $('action').querySelector(`[data-unit-for="${CSS.escape(node.dataset.path)}"]`);
      return { [unit ? unit.value : 'tonnes']: d };
    }
    if (type === 'integer' || type === 'number') {
      const n = Number(node.value.trim().replace(',', '.'));
      if (!Number.isFinite(n)) { bad.push({ field: node.dataset.path, message: t('invalidNumber') }); return undefined; }
      return n;
    }
    return node.value;
  }
  function parentOf(e) { // the nearest enclosing element that carries a path
    let p = e.parentElement;
    while (p && !p.dataset.path) p = p.parentElement;
    return p;
  }
  // A business error in the reader's language: in English the server's
  // message when it names no field path (it says the details: the earliest
  // date possible, what is missing), else the code's words from the
  // server's labels (the list businessError), as in German.
  function problemText(code, message) {
    const words = listWord('businessError', code);
    if (lang === 'en' && message && (!words || !/[a-z][A-Za-z0-9]*\.[a-z]/.test(message))) {
      const m = message.charAt(0).toUpperCase() + message.slice(1);
      return /[.!?]$/.test(m) ? m : m + '.';
    }
    return words || message || t('errorTitle');
  }

  async function submitAction(ev) {
    ev.preventDefault();
    if (!action) return;
    for (const e of $('action').querySelectorAll('.field-error')) { e.textContent = ''; e.removeAttribute('data-code'); }
    for (const e of $('action').querySelectorAll('.kern-form-input--error, .kern-fieldset--error, .kern-form-check--error')) e.classList.remove('kern-form-input--error', 'kern-fieldset--error', 'kern-form-check--error');
    for (const e of $('action').querySelectorAll('[aria-invalid]')) { e.removeAttribute('aria-invalid'); e.classList.remove('kern-form-input__input--error', 'kern-form-input__select--error'); }
    $('action-errors').hidden = true;
    $('stale').hidden = true;
    const root = $('action-fields').firstElementChild;
    const bad = [];
    const block = collect(root, bad);
    if (bad.length) { showProblems(bad); return; }
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
      notice(t('done', { intent: intentLabel(intent, current.kind) }));
      await showDocument(current.id);
      $('doc-state').focus();
      return;
    }
    const problems = [];
    if (r.status === 200) {
      for (const be of r.data.businessErrors) problems.push({ field: be.field, code: be.code, message: problemText(be.code, be.message) });
    } else if (r.status === 409 || (r.data.details || []).some((d) => d.reason === 'VERSION_MISMATCH')) {
      $('stale').hidden = false;
      $('reload').focus();
      return;
    } else if (r.status >= 500) {
      throw fail(r);
    } else {
      const violations = (r.data.details || []).flatMap((d) => d.fieldViolations || []);
      for (const fv of violations) problems.push({ field: fv.field.replace(new RegExp('^document\\.' + current.container + '\\.'), ''), message: fv.description });
      if (!violations.length) problems.push({ field: '', message: r.data.message || t('serverError', { status: r.status }) });
    }
    showProblems(problems);
  }
  // showProblems puts each problem at its field (aria-invalid, its message
  // among the input's aria-describedby), the rest in the form's alert, and
  // moves the focus to the first.
  function showProblems(problems) {
    const unplaced = [];
    let first = null;
    for (const p of problems) {
      const slot = p.field && fieldSlot(p.field);
      if (slot) {
        slot.textContent = (slot.textContent ? slot.textContent + ' ' : '') + p.message;
        if (p.code) slot.dataset.code = p.code;
        const wrap = slot.parentElement;
        wrap.classList.add(wrap.tagName === 'FIELDSET' ? 'kern-fieldset--error' : wrap.classList.contains('kern-form-check') ? 'kern-form-check--error' : 'kern-form-input--error');
        const input = wrap.tagName === 'FIELDSET' ? wrap.querySelector('input, select, textarea, button') : wrap.querySelector('input, select, textarea');
        if (input && wrap.tagName !== 'FIELDSET') {
          input.setAttribute('aria-invalid', 'true');
          input.classList.add(input.tagName === 'SELECT' ? 'kern-form-input__select--error' : 'kern-form-input__input--error');
        }
        first = first || input || slot;
      } else unplaced.push(p);
    }
    const where = (path) => { // a field path in words: Notification › Total quantity
      let sc = action && action.schema;
      return path.replace(/\[(\d+)\]/g, '.$1').split('.').filter((x) => !/^\d+$/.test(x)).map((k, i) => {
        if (i === 0 && action && k === action.block) return null;
        const ps = sc && (propOf(sc, k) || propOf(itemsOf(sc), k));
        sc = ps;
        return propLabel(ps, k);
      }).filter(Boolean).join(' › ');
    };
    $('action-error-list').replaceChildren(...problems.map((p) => el('li', { text: (p.field && where(p.field) ? where(p.field) + ': ' : '') + p.message })));
    $('action-errors').hidden = false;
    (first || $('action-errors')).focus();
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
    $('lang').addEventListener('change', () => {
      lang = $('lang').value; localStorage.setItem('wasteflow.lang', lang); notice('');
      translatePage(); showSession();
      if (!refreshToken && sessionNote) { show('login-view'); saySessionNote(); return; } // why the session ended stays, in the new language
      // an open form stays open with what was typed, in the new words
      const open = action && $('action-fields').firstElementChild ? { intent: action.intent, create: action.create, values: collect($('action-fields').firstElementChild, []) } : null;
      // data-rendering: the page is being drawn again in the new words (a
      // form closes and reopens meanwhile); scripts driving it wait
      document.body.setAttribute('data-rendering', '');
      route().then(() => {
        if (open && open.create && action && action.create === open.create) return fillAgain(open.values);
        if (open && !open.create && current) return openAction(open.intent, open.values);
      }).catch(report).finally(() => document.body.removeAttribute('data-rendering'));
    });
    $('filters').addEventListener('submit', (ev) => {
      ev.preventDefault();
      filters.kind = $('filter-kind').value; filters.state = $('filter-state').value; filters.sort = $('sort').value; pageStart = 0;
      showList(listMode).catch(report);
    });
    $('filter-kind').addEventListener('change', () => fillStates().catch(report));
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
    await loadOpenAPI().catch(() => {}); // the words; a form loads it again when it needs it
    route();
  }
  start().catch(report);
})();
