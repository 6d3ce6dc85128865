// Sabot pit console: logs in, keeps one event stream, draws a tile per
// table sorted by urgency (class, then the oldest problem, then name: the
// server's rule, pitLess in cmd/sabot/pitmodel.go), and sends
// acknowledgements. Every text is set with textContent: nothing the
// tables publish is read as HTML.
'use strict';
(() => {
  const $ = (id) => document.getElementById(id);
  const tiles = new Map(); // table -> tile data
  let csrf = '';
  let es = null;
  let skew = 0; // server clock - browser clock, ms
  let assets = '';
  let link = { connected: false, broker: '' };
  let dropped = 0;

  const el = (tag, cls, text) => {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  };

  const urgencyLess = (a, b) => {
    if (a.class !== b.class) return a.class - b.class;
    if (a.class !== 3) {
      const ta = Date.parse(a.since), tb = Date.parse(b.since);
      if (ta !== tb) return ta - tb;
    }
    return a.table < b.table ? -1 : a.table > b.table ? 1 : 0;
  };

  const age = (iso) => {
    const s = Math.max(0, Math.floor((Date.now() + skew - Date.parse(iso)) / 1000));
    if (s < 60) return s + 's';
    const m = Math.floor(s / 60);
    if (m < 60) return m + 'm ' + (s % 60) + 's';
    const h = Math.floor(m / 60);
    return h + 'h ' + (m % 60) + 'm';
  };

  const winnerText = { banker: 'Banker', player: 'Player', tie: 'Tie' };

  function fact(box, label, value, cls) {
    const s = el('span', 'fact');
    s.append(label + ' ');
    const b = el('b', cls || '', String(value));
    s.append(b);
    box.append(s);
    return b;
  }

  function drawTile(t) {
    const d = el('section', 'tile');
    d.dataset.table = t.table;
    d.dataset.class = String(t.class);
    d.dataset.status = t.status;
    const head = el('div', 'head');
    let name;
    if (t.board) {
      name = el('a', 'name board', t.table);
      name.href = t.board;
      name.target = '_blank';
      name.rel = 'noopener noreferrer';
      name.title = 'board page';
    } else {
      name = el('span', 'name', t.table);
    }
    head.append(name, el('span', 'game', t.game || ''));
    head.append(el('span', 'badge status ' + t.status, t.status));
    if (t.status === 'online' && t.shoe_state && t.shoe_state !== 'online') {
      head.append(el('span', 'badge shoe-' + t.shoe_state, 'shoe ' + t.shoe_state));
    }
    d.append(head);
    const facts = el('div', 'facts');
    fact(facts, 'shoe', t.shoe || '–').dataset.k = 'shoe';
    fact(facts, 'coup', t.coup || '–').dataset.k = 'coup';
    if (t.dealer) fact(facts, 'dealer', t.dealer).dataset.k = 'dealer';
    if (t.last) {
      let txt = winnerText[t.last.winner] || t.last.winner;
      if (t.last.known) txt += ' ' + t.last.player_total + '–' + t.last.banker_total + (t.last.natural ? ' natural' : '');
      if (t.last.voided) txt += ' (void)';
      fact(facts, 'last #' + t.last.coup, txt, 'res-' + t.last.winner).dataset.k = 'last';
    }
    if (t.stats && t.stats.coups) fact(facts, 'B/P/T', t.stats.banker + '/' + t.stats.player + '/' + t.stats.tie).dataset.k = 'bpt';
    if (t.cards_left) fact(facts, 'cards left', t.cards_left).dataset.k = 'cards';
    // From 100 messages (pitBacklogShown): fewer are a table at work.
    if (t.backlog >= 100) fact(facts, 'backlog', t.backlog).dataset.k = 'backlog';
    // Coup numbers of the shoe neither received as a coup nor a void.
    if (t.missed_coups) fact(facts, 'missed coups', t.missed_coups).dataset.k = 'missed';
    d.append(facts);
    if (t.conflict) d.append(el('div', 'conflict', 'two daemons publish as this table'));
    const ul = el('ul', 'alerts');
    for (const a of t.alerts) {
      const li = el('li', a.severity);
      li.dataset.code = a.code;
      li.dataset.id = a.id;
      li.append(el('span', 'e', a.e !== 'E0' ? a.e : '!'));
      li.append(el('span', 'code', a.code));
      if (a.count > 1) li.append(el('span', 'count', ' ×' + a.count));
      li.append(': ');
      li.append(el('span', 'text', a.text + ' (coup ' + a.coup + (a.dealer ? ', dealer ' + a.dealer : '') + ')'));
      const ag = el('span', 'age', (a.late ? '≥' : '') + age(a.time));
      ag.dataset.time = a.time;
      ag.dataset.late = a.late ? '1' : '';
      li.append(ag);
      ul.append(li);
    }
    if (t.more_alerts > 0) ul.append(el('li', 'more', '+' + t.more_alerts + ' more'));
    d.append(ul);
    const act = el('div', 'actions');
    if (t.alerts.length > 0 || t.more_alerts > 0) {
      const b = el('button', 'ack', 'Acknowledge');
      b.type = 'button';
      b.disabled = t.status !== 'online' || (t.ack && t.ack.state === 'sent');
      b.addEventListener('click', () => ack(t.table, b));
      act.append(b);
    }
    if (t.ack) {
      const s = el('span', 'ack-state ' + t.ack.state, ackText(t.ack));
      s.dataset.state = t.ack.state;
      act.append(s);
    }
    d.append(act);
    return d;
  }

  function ackText(a) {
    switch (a.state) {
      case 'sent': return 'sent by ' + a.operator + ', waiting for the table';
      case 'accepted': return 'acknowledged by ' + a.operator;
      default: return (a.state === 'no-reply' ? 'no reply: ' : 'refused: ') + (a.reason || '');
    }
  }

  function render() {
    const list = [...tiles.values()].sort(urgencyLess);
    const box = $('tiles');
    const nodes = list.map((t) => {
      if (!t.node || t.node.dataset.v !== String(t.v)) {
        const n = drawTile(t);
        n.dataset.v = String(t.v);
        if (t.node) t.node.replaceWith(n);
        t.node = n;
      }
      return t.node;
    });
    nodes.forEach((n, i) => { if (box.children[i] !== n) box.insertBefore(n, box.children[i] || null); });
    while (box.children.length > nodes.length) box.lastChild.remove();
    const c = [0, 0, 0, 0];
    for (const t of list) c[t.class]++;
    const sum = $('summary');
    sum.textContent = '';
    sum.append(el('b', '', String(list.length)), ' tables · ', el('b', '', String(c[0])), ' critical · ',
      el('b', '', String(c[1])), ' warning · ', el('b', '', String(c[2])), ' notice');
    if (dropped > 0) sum.append(' · ' + dropped + ' messages of tables past the limit dropped');
    const l = $('link');
    l.className = 'lamp' + (link.connected ? ' ok' : '');
    l.title = link.connected ? 'broker ' + link.broker : 'not connected to a broker: the tiles may be stale';
    l.dataset.broker = link.broker;
  }

  function tickAges() {
    for (const e of document.querySelectorAll('.alerts .age')) e.textContent = (e.dataset.late ? '≥' : '') + age(e.dataset.time);
  }

  function connect() {
    if (es) es.close();
    es = new EventSource('events');
    es.addEventListener('tiles', (ev) => {
      const d = JSON.parse(ev.data);
      skew = Date.parse(d.now) - Date.now();
      if (assets && d.assets !== assets) { location.reload(); return; }
      assets = d.assets;
      link = d.link;
      dropped = d.dropped;
      if (d.full) { for (const t of tiles.values()) if (t.node) t.node.remove(); tiles.clear(); }
      for (const t of d.tiles) {
        const old = tiles.get(t.table);
        if (old && old.v >= t.v) continue;
        t.node = old ? old.node : null;
        tiles.set(t.table, t);
      }
      window.__pitEvents = (window.__pitEvents || 0) + 1;
      $('notice').textContent = '';
      render();
    });
    es.addEventListener('logout', () => { es.close(); showLogin(''); });
    es.onerror = () => { $('notice').textContent = 'reconnecting to the console…'; link = { connected: false, broker: '' }; render(); };
  }

  async function ack(table, button) {
    button.disabled = true;
    try {
      const r = await fetch('api/ack', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
        body: JSON.stringify({ table }) });
      if (r.status === 401) { showLogin('the session ended; log in again'); return; }
      if (!r.ok) {
        const e = await r.json().catch(() => ({}));
        $('notice').textContent = 'acknowledgement of ' + table + ' not sent: ' + (e.error || r.status);
        button.disabled = false;
      }
    } catch (e) {
      $('notice').textContent = 'acknowledgement of ' + table + ' not sent: ' + e;
      button.disabled = false;
    }
  }

  function showLogin(msg) {
    if (es) { es.close(); es = null; }
    csrf = '';
    $('tiles').textContent = '';
    tiles.clear();
    $('login').hidden = false;
    $('logout').hidden = true;
    $('user').textContent = '';
    $('login-error').textContent = msg;
    $('login-user').focus();
  }

  function loggedIn(s) {
    csrf = s.csrf;
    $('login').hidden = true;
    $('logout').hidden = false;
    $('user').textContent = s.user;
    connect();
  }

  $('login').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    $('login-error').textContent = '';
    const r = await fetch('api/login', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ user: $('login-user').value, password: $('login-password').value }) });
    const s = await r.json().catch(() => ({}));
    $('login-password').value = '';
    if (!r.ok) { $('login-error').textContent = s.error || ('login failed (' + r.status + ')'); return; }
    loggedIn(s);
  });

  $('logout').addEventListener('click', async () => {
    await fetch('api/logout', { method: 'POST', headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: '{}' });
    showLogin('');
  });

  fetch('api/session').then(async (r) => {
    if (r.ok) loggedIn(await r.json()); else showLogin('');
  });
  setInterval(tickAges, 1000);
})();
