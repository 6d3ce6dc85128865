// Sabot board: draws the table's state and roads from the daemon's
// server-sent events (/events, one whole state per event). Read-only: it
// sends nothing but GET requests. No library, no build step.
'use strict';

(function () {
  const LABELS = {
    en: {
      player: 'PLAYER', banker: 'BANKER', tie: 'TIE', P: 'P', B: 'B', T: 'T', left: 'LEFT',
      side: (who, r) => `${who} ${r === 'win' ? 'WINS' : r === 'tie' ? 'TIES' : 'LOSES'}`,
      noRoads: 'Baccarat banque: no roads (each tableau is settled on its own)',
      bigRoad: 'Big road', beadPlate: 'Bead plate', bigEyeBoy: 'Big eye boy', smallRoad: 'Small road',
      cockroachPig: 'Cockroach pig', ask: 'Ask road', stats: 'Statistics', alerts: 'Alerts',
      shoeCoup: (s, c) => `Shoe ${s} · Coup ${c}`,
      wins: (w) => `${w} WINS`, tieResult: 'TIE', natural: 'Natural', draws: (w) => `${w} draws`,
      burn: (d, w) => (w > 0 ? `Burn ${d} of ${w}` : 'Burn'), noShoe: 'Waiting for a new shoe',
      between: 'Place your bets', dealing: 'Dealing', lastCoup: 'Last coup of the shoe', voided: 'Coup voided',
      cardsLeft: 'Cards left', coupsLeft: 'Coups left (est.)', coups: 'Coups', pp: 'Player pairs', bp: 'Banker pairs',
      naturals: 'Naturals', runB: 'Longest banker run', runP: 'Longest player run',
      shoe: 'Shoe', broker: 'MQTT', live: 'Live', reconnecting: 'Reconnecting…', offline: 'Board offline: reconnecting…',
      min: 'Min', max: 'Max', tieMax: 'Tie max', pairMax: 'Pair max',
      ifBanker: 'Banker', ifPlayer: 'Player', noAlerts: 'No alerts', acked: 'acknowledged', open: 'awaiting acknowledgement',
    },
    zh: {
      player: '閒', banker: '莊', tie: '和', P: '閒', B: '莊', T: '和', left: '左門',
      side: (who, r) => `${who}${r === 'win' ? '贏' : r === 'tie' ? '和' : '輸'}`,
      noRoads: '巴卡拉銀行：無路單（左右門各自結算）',
      bigRoad: '大路', beadPlate: '珠盤路', bigEyeBoy: '大眼仔', smallRoad: '小路',
      cockroachPig: '曱甴路', ask: '問路', stats: '統計', alerts: '警報',
      shoeCoup: (s, c) => `第 ${s} 靴 · 第 ${c} 局`,
      wins: (w) => `${w}贏`, tieResult: '和局', natural: '例牌', draws: (w) => `${w}補牌`,
      burn: (d, w) => (w > 0 ? `燒牌 ${d}/${w}` : '燒牌'), noShoe: '等待新牌靴',
      between: '請下注', dealing: '派牌中', lastCoup: '本靴最後一局', voided: '此局作廢',
      cardsLeft: '餘牌', coupsLeft: '預計餘局', coups: '局數', pp: '閒對', bp: '莊對',
      naturals: '例牌', runB: '最長連莊', runP: '最長連閒',
      shoe: '牌靴', broker: 'MQTT', live: '即時', reconnecting: '重新連線中…', offline: '連線中斷，重新連線中…',
      min: '最低', max: '最高', tieMax: '和最高', pairMax: '對子最高',
      ifBanker: '莊', ifPlayer: '閒', noAlerts: '無警報', acked: '已確認', open: '待確認',
      games: { 'Punto Banco': '百家樂', 'Super 6': '超級六百家樂', 'EZ Baccarat': 'EZ 百家樂' },
    },
  };
  // The wording of the other games, over LABELS: chemin de fer's player is
  // the punter; banque's player hand is the right tableau.
  const GAME_LABELS = {
    'chemin-de-fer': {
      en: { player: 'PUNTER', ifPlayer: 'Punter', pp: 'Punter pairs', runP: 'Longest punter run' },
      zh: {},
    },
    banque: {
      en: { player: 'RIGHT' },
      zh: { player: '右門' },
    },
  };
  const SUITS = { S: '♠', H: '♥', D: '♦', C: '♣' };
  const ROWS = 6;

  const params = new URLSearchParams(location.search);
  let lang = LABELS[params.get('lang')] ? params.get('lang') : null; // null: the daemon's [board] lang
  let L = LABELS[lang || 'en'];
  let cur = lang || 'en'; // the language shown
  let gameID = ''; // the state's game_id, for GAME_LABELS
  let state = null;
  let assets = null;

  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

  function setLang(l) {
    cur = l;
    L = Object.assign({}, LABELS[l], (GAME_LABELS[gameID] || {})[l]);
    for (const k of Object.keys(drawn)) delete drawn[k];
    document.documentElement.lang = l === 'zh' ? 'zh-Hant' : 'en';
    for (const el of document.querySelectorAll('[data-l]')) el.textContent = L[el.dataset.l];
  }

  // ---- The current coup.
  function cardHTML(c, i) {
    const suit = c.length > 1 ? c[c.length - 1] : '';
    let rank = suit ? c.slice(0, -1) : c;
    if (rank === 'T') rank = '10';
    const red = suit === 'H' || suit === 'D' ? ' red' : '';
    const third = i === 2 ? ' third' : '';
    return `<span class="card${red}${third}" data-card="${esc(c)}">${esc(rank)}${suit ? `<small>${SUITS[suit] || ''}</small>` : ''}</span>`;
  }

  // leftHand builds banque's left tableau (the page has it only there).
  function leftHand() {
    const el = document.createElement('div');
    el.className = 'hand left';
    el.id = 'hand-left';
    for (const [cls, id] of [['label', ''], ['cards', 'cards-left'], ['total', 'total-left']]) {
      const d = document.createElement('div');
      d.className = cls;
      if (id) d.id = id;
      else { d.dataset.l = 'left'; d.textContent = L.left; }
      el.appendChild(d);
    }
    return el;
  }

  function renderCoup(s) {
    // Banque: the player hand is the right tableau, and the left one is
    // shown too; each tableau has its own result against the banker.
    const banque = s.game_id === 'banque';
    const left = s.left || { cards: [], total: 0 };
    $('coup').classList.toggle('banque', banque);
    if (banque && !$('hand-left')) $('coup').appendChild(leftHand());
    const side = (name, h, won, waits) => {
      $('cards-' + name).innerHTML = h.cards.map(cardHTML).join('');
      $('total-' + name).textContent = h.cards.length ? h.total : '';
      const el = $('hand-' + name);
      el.classList.toggle('won', won);
      el.classList.toggle('draws', s.waiting === waits + '-third');
    };
    if (banque) {
      side('player', s.player, s.right_winner === 'right', 'right');
      side('left', left, s.left_winner === 'left', 'left');
      side('banker', s.banker, s.right_winner === 'banker' && s.left_winner === 'banker', 'banker');
    } else {
      side('player', s.player, s.winner === 'player', 'player');
      side('banker', s.banker, s.winner === 'banker', 'banker');
    }
    const r = $('result');
    let cls = 'idle';
    let main = '';
    let second = '';
    let sub = '';
    if (s.phase === 'no-shoe') main = L.noShoe;
    else if (s.phase === 'burn') main = L.burn(s.burn_drawn, s.burn_want);
    else if (s.voided) { cls = 'voided'; main = L.voided; }
    else if (banque && s.right_winner) {
      const res = (w, me) => (w === me ? 'win' : w === 'tie' ? 'tie' : 'lose');
      cls = 'sides';
      main = L.side(L.player, res(s.right_winner, 'right'));
      second = L.side(L.left, res(s.left_winner, 'left'));
      if (s.natural) sub = L.natural;
    } else if (s.winner) {
      cls = s.winner;
      main = s.winner === 'tie' ? L.tieResult : L.wins(L[s.winner]);
      if (s.natural) sub = L.natural;
    } else if (s.waiting) {
      const who = s.waiting.replace('-third', ''); // player, right, left or banker
      cls = who === 'banker' ? 'banker' : 'player';
      main = L.draws(who === 'left' ? L.left : L[cls]);
    } else if (s.player.cards.length || s.banker.cards.length || left.cards.length) main = L.dealing;
    else main = L.between;
    if (s.is_last_coup && !sub) sub = L.lastCoup;
    r.className = cls;
    r.innerHTML = `<div>${esc(main)}</div>${second ? `<div>${esc(second)}</div>` : ''}${sub ? `<div class="sub">${esc(sub)}</div>` : ''}`;
  }

  // ---- Header: table, game, limits, shoe and coup, status lamps.
  function renderHeader(s) {
    $('table').textContent = s.table;
    $('game').textContent = (L.games && L.games[s.game]) || s.game;
    const lim = s.limits || {};
    const cur = lim.currency || '';
    const fmt = (n) => cur + Number(n).toLocaleString('en-US');
    const parts = [];
    if (lim.min) parts.push([L.min, fmt(lim.min)]);
    if (lim.max) parts.push([L.max, fmt(lim.max)]);
    if (lim.tie_max) parts.push([L.tieMax, fmt(lim.tie_max)]);
    if (lim.pair_max) parts.push([L.pairMax, fmt(lim.pair_max)]);
    $('limits').innerHTML = parts.map(([k, v]) => `<span><b>${esc(k)}</b>${esc(v)}</span>`).join('');
    $('shoecoup').textContent = s.shoe > 0 ? L.shoeCoup(s.shoe, s.coup) : '';
    lamp('st-shoe', s.shoe_online, L.shoe);
    lamp('st-broker', s.broker.connected, L.broker + (s.broker.backlog > 0 ? ` (${s.broker.backlog})` : ''));
    document.title = `${s.table} · ${s.game}`;
  }

  function lamp(id, ok, text) {
    const el = $(id);
    el.className = 'lamp ' + (ok ? 'ok' : 'bad');
    el.textContent = text;
  }

  // ---- Road grids.
  // Each road is drawn on a six-row grid, column by column, with as many
  // columns as fill the room; a road longer than that shows its newest
  // columns. Cells carry data-r, data-c (0-based row and column) and data-v
  // (the cell as `sabot roads` writes it), so what is drawn can be read back.
  //
  // Only the cells that hold something are elements (placed with
  // grid-row/grid-column); the empty board is the background's lines. A
  // road is redrawn only when it or its room changed.
  const drawn = {};

  // The room of each road, measured once and again only when the window
  // is resized (reading it on every event would force a layout).
  const sizes = {};
  function sizeOf(el) {
    if (!sizes[el.id]) sizes[el.id] = { w: el.clientWidth, h: el.clientHeight };
    return sizes[el.id];
  }

  // grid: rows × columns, each cell null or {v, cls, data, pp, bp}. The
  // cells are built with the DOM (the page's Content-Security-Policy allows
  // no inline style).
  function drawGrid(el, grid, newest) {
    const cols = grid.reduce((n, row) => Math.max(n, row.length), 0);
    const size = sizeOf(el);
    const cell = Math.max(8, Math.floor(size.h / ROWS));
    const fit = Math.max(1, Math.floor(size.w / cell));
    const first = Math.max(0, cols - fit);
    const key = JSON.stringify([cell, fit, grid, newest]);
    if (drawn[el.id] === key) return;
    drawn[el.id] = key;
    const board = document.createElement('div');
    board.className = 'cells';
    board.style.width = (fit * cell + 1) + 'px';
    for (let r = 0; r < ROWS; r++) {
      const row = grid[r] || [];
      for (let c = first; c < row.length; c++) {
        const x = row[c];
        if (!x) continue;
        const d = document.createElement('div');
        d.className = 'c' + (x.cls ? ' ' + x.cls : '') + (newest && newest[0] === r && newest[1] === c ? ' newest' : '');
        d.style.gridRow = String(r + 1);
        d.style.gridColumn = String(c - first + 1);
        Object.assign(d.dataset, { r, c, v: x.v }, x.data || {});
        if (x.pp || x.bp) d.appendChild(pairsEl(x.pp, x.bp));
        board.appendChild(d);
      }
    }
    el.style.setProperty('--cell', cell + 'px');
    el.dataset.first = first;
    el.replaceChildren(board);
  }

  function pairsEl(pp, bp) {
    const p = document.createElement('span');
    p.className = 'pairs';
    for (const [on, cls] of [[bp, 'bp'], [pp, 'pp']]) {
      if (!on) continue;
      const i = document.createElement('i');
      i.className = cls;
      p.appendChild(i);
    }
    return p;
  }

  // A cell as display.Grids writes it: "B", "P" or "T" (bead plate) or "B"
  // and "P" (big road), the tie count, then "p" player pair, "b" banker
  // pair, "n" natural.
  function parseCell(v) {
    const m = /^([BPT])(\d*)([pbn]*)$/.exec(v);
    if (!m) return null;
    return { w: m[1], ties: parseInt(m[2] || '0', 10), pp: m[3].includes('p'), bp: m[3].includes('b'), nat: m[3].includes('n') };
  }

  const grids = (s) => (s.roads && s.roads.grids) || {};

  // newestBead is the position of the last coup on the bead plate.
  function newestBead(g) {
    let at = null;
    g.forEach((row, r) => row.forEach((v, c) => {
      if (v && (!at || c > at[1] || (c === at[1] && r > at[0]))) at = [r, c];
    }));
    return at;
  }

  function renderBead(s) {
    const g = grids(s).bead_plate || [];
    const grid = g.map((row) => row.map((v) => {
      const x = v && parseCell(v);
      if (!x) return null;
      return { v, cls: x.nat ? 'nat' : '', data: { w: x.w, t: L[x.w] }, pp: x.pp, bp: x.bp };
    }));
    drawGrid($('g-bead'), grid, newestBead(g));
  }

  function renderBig(s) {
    const g = grids(s).big_road || [];
    const grid = g.map((row) => row.map((v) => {
      const x = v && parseCell(v);
      if (!x) return null;
      const cls = x.ties > 0 ? 'tie' + (x.ties === 1 ? ' tie1' : '') : '';
      return { v, cls, data: { w: x.w, ties: x.ties }, pp: x.pp, bp: x.bp };
    }));
    drawGrid($('g-big'), grid, null);
  }

  function renderDerived(s, name, id) {
    const g = grids(s)[name] || [];
    const grid = g.map((row) => row.map((v) => (v === 'R' || v === 'B' ? { v } : null)));
    drawGrid($(id), grid, null);
  }

  // ---- Statistics, ask-road, alerts.
  function renderStats(s) {
    document.body.classList.toggle('no-roads', !!s.no_roads);
    if (s.no_roads) {
      $('stats-list').innerHTML = `<dt>${esc(L.cardsLeft)}</dt><dd data-k="cards_left">${esc(s.cards_left)}</dd><dt class="note" data-k="no_roads">${esc(L.noRoads)}</dt>`;
      return;
    }
    const st = (s.roads && s.roads.stats) || {};
    const n = (k) => (st[k] == null ? '–' : st[k]);
    const rows = [['banker', L.banker, 'banker'], ['player', L.player, 'player'], ['tie', L.tie, 'tie'],
      ['banker_pairs', L.bp], ['player_pairs', L.pp], ['naturals', L.naturals],
      ['longest_banker_streak', L.runB], ['longest_player_streak', L.runP],
      ['coups', L.coups], ['cards_left', L.cardsLeft], ['coups_left', L.coupsLeft]];
    $('stats-list').innerHTML = rows.map(([k, label, c]) => `<dt>${esc(label)}</dt><dd${c ? ` class="${c}"` : ''} data-k="${k}">${esc(n(k))}</dd>`).join('');
  }

  function renderAsk(s) {
    const ask = (s.roads && s.roads.ask) || {};
    const roads = [['big_eye_boy', 'beb', L.bigEyeBoy], ['small_road', 'sr', L.smallRoad], ['cockroach_pig', 'cp', L.cockroachPig]];
    const out = ['<span></span>', ...roads.map(([, , t]) => `<span class="hd">${esc(t)}</span>`)];
    for (const who of ['banker', 'player']) {
      out.push(`<span class="who ${who}">${esc(who === 'banker' ? L.ifBanker : L.ifPlayer)}</span>`);
      for (const [key, cls] of roads) {
        const v = (ask[who] || {})[key];
        out.push(`<span class="mark ${cls}" data-ask="${who}.${key}">${v ? `<span class="c" data-v="${esc(v)}"></span>` : ''}</span>`);
      }
    }
    $('ask-list').innerHTML = out.join('');
  }

  function renderAlerts(s) {
    const list = s.alerts || [];
    $('alert-list').innerHTML = list.length
      ? list.map((a) => `<li class="${a.acknowledged ? 'acked' : 'open'}" data-alert="${esc(a.code)}"><span class="code">${esc(a.display)}</span> ${esc(a.code)}${a.text ? ': ' + esc(a.text) : ''} <small>(#${a.coup}, ${a.acknowledged ? L.acked : L.open})</small></li>`).join('')
      : `<li class="none">${esc(L.noAlerts)}</li>`;
  }

  // Each part of the board is redrawn only when what it shows changed: a
  // card changes the coup panel alone.
  const lastKeys = {};
  function part(name, data, draw) {
    const key = JSON.stringify([lang, cur, gameID, data]);
    if (lastKeys[name] === key) return;
    lastKeys[name] = key;
    draw();
  }

  function render() {
    const s = state;
    if (!s) return;
    const r = s.roads || {};
    part('header', [s.table, s.game, s.limits, s.shoe, s.coup, s.shoe_online, s.broker], () => renderHeader(s));
    part('coup', [s.phase, s.player, s.banker, s.left, s.waiting, s.winner, s.right_winner, s.left_winner, s.natural, s.voided, s.burn_drawn, s.burn_want, s.is_last_coup], () => renderCoup(s));
    part('roads', [r.grids, sizes], () => {
      renderBead(s);
      renderBig(s);
      renderDerived(s, 'big_eye_boy', 'g-beb');
      renderDerived(s, 'small_road', 'g-sr');
      renderDerived(s, 'cockroach_pig', 'g-cp');
    });
    part('stats', [r.stats, s.no_roads, s.no_roads && s.cards_left], () => renderStats(s));
    part('ask', r.ask, () => renderAsk(s));
    part('alerts', s.alerts, () => renderAlerts(s));
  }

  // Drawing is coalesced: events that arrive while the page is busy are
  // drawn once, at the next frame (or within 100 ms if the page gets no
  // frames), so a slow display never falls behind the table.
  let pending = false;
  function schedule() {
    if (pending) return;
    pending = true;
    const go = () => { if (pending) { pending = false; render(); } };
    requestAnimationFrame(go);
    setTimeout(go, 100);
  }

  // ---- The event stream. EventSource reconnects by itself after a
  // network error (the daemon restarting); a stream closed for good (an
  // HTTP error) or silent for too long is reopened here.
  let es = null;
  let lastHeard = 0;
  let reopen = null;

  function live(ok) {
    lamp('st-live', ok, ok ? L.live : L.reconnecting);
    let o = $('offline');
    if (ok && o) o.remove();
    if (!ok && !o && state) {
      o = document.createElement('div');
      o.id = 'offline';
      o.textContent = L.offline;
      document.body.appendChild(o);
    }
  }

  function connect() {
    if (es) es.close();
    es = new EventSource('events');
    es.addEventListener('board', (ev) => {
      lastHeard = Date.now();
      const s = JSON.parse(ev.data);
      if (assets && s.assets !== assets) { location.reload(); return; }
      assets = s.assets;
      if (s.game_id !== gameID) { gameID = s.game_id || ''; setLang(lang || cur); }
      if (!lang) setLang(LABELS[s.lang] ? s.lang : 'en');
      state = s;
      schedule();
      live(true);
    });
    es.addEventListener('hb', () => { lastHeard = Date.now(); });
    es.onopen = () => { lastHeard = Date.now(); };
    es.onerror = () => {
      live(false);
      if (es.readyState === EventSource.CLOSED && !reopen) {
        reopen = setTimeout(() => { reopen = null; connect(); }, 2000);
      }
    };
  }

  // The daemon sends a heartbeat every 15 s: a stream silent for 40 s is
  // dead (a half-open connection) and is reopened.
  setInterval(() => {
    if (lastHeard && Date.now() - lastHeard > 40000) { lastHeard = Date.now(); live(false); connect(); }
  }, 5000);

  let resizeTimer = null;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      for (const k of Object.keys(sizes)) delete sizes[k];
      render();
    }, 100);
  });

  if (lang) setLang(lang); else setLang('en');
  lamp('st-live', false, L.reconnecting);
  connect();
})();
