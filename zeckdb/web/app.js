// The zeckdb page: a thin client of the JSON API (/docs). No framework, no network but this server.
"use strict";

const $ = (id) => document.getElementById(id);
const game = { variant: null, n: null, line: [], played: [], timer: null };

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// what the server sends (a game's name, a move's, a stored text) as the page shows it: every
// control character and mark that reorders text (U+202E shows what follows backwards) as its escape
const shown = (text) => String(text).replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
  (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
const notKept = "not kept by this build (--lean or --winner-only)";

async function api(path) {
  let response = await fetch(path);
  // 429: the service's heavy-request slots are busy (the page's own figures, say): wait a little
  for (let tries = 0; response.status === 429 && tries < 20; tries++) {
    await sleep(Math.min(250 * 2 ** tries, 2000));
    response = await fetch(path);
  }
  const body = await response.json().catch(() => ({ error: `the server answered ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `the server answered ${response.status}`);
  return body;
}

function showError(error) {
  $("error").textContent = shown(error ? String(error.message || error) : "");
  $("error").hidden = !error;
}

const players = () => (game.line.length ? game.line[0].players : 2);
// Player 1 moves first from the start (or from a typed position); players take turns
const mover = (ply) => 1 + ((ply % players()) + players()) % players();
const other = (player) => 3 - player;
// games of three or more players: a forcing seat (1 = the player to move) as the player it is
const seatPlayer = (seat, ply) => (seat == null ? null : mover(ply + seat - 1));
const forcingText = (seat, ply) =>
  seat == null ? "no player can force a win" : `Player ${seatPlayer(seat, ply)} can force a win`;
const plural = (k, word) => `${k} ${word}${k === 1 ? "" : "s"}`;

async function loadVariants() {
  const games = await api("/v1/variants");
  const select = $("variant");
  for (const g of games) {
    const built = g.built && typeof g.built === "object" ? Object.entries(g.built) : [[g.variant, g.built]];
    for (const [name, ns] of built) {
      if (!ns) continue;
      const option = document.createElement("option");
      option.value = name;
      option.textContent = shown(`${name} (n = ${ns})`);
      option.title = g.game;
      select.append(option);
    }
  }
  if (!select.options.length) showError("nothing is built in this database yet: run `zeckdb build`");
  const status = await api("/v1/status");
  $("building").hidden = !status.build_running;
}

async function startGame(variant, n) {
  const info = await api(`/v1/${encodeURIComponent(variant)}/starts/${encodeURIComponent(n)}`);
  newGame(variant, info.value, info);
  history.replaceState(null, "", `?variant=${encodeURIComponent(variant)}&n=${info.value}`);
}

async function lookUp(variant, text) {
  const info = await api(`/v1/${encodeURIComponent(variant)}/positions/${encodeURIComponent(text.trim())}`);
  newGame(variant, info.value, info);
  history.replaceState(null, "", `?variant=${encodeURIComponent(variant)}&position=${info.position.join(",")}`);
}

function newGame(variant, n, info) {
  clearTimeout(game.timer);
  Object.assign(game, { variant, n, line: [info], played: [] });
  $("n").value = n;
  const opponent = $("opponent");  // the computer can play any one seat
  const chosen = opponent.value;
  opponent.innerHTML = '<option value="0">nobody (explore)</option>';
  for (let seat = 1; seat <= info.players; seat++) opponent.add(new Option(`Player ${seat}`, String(seat)));
  opponent.value = Number(chosen) <= info.players ? chosen : "2";
  // profiles are played by two: in games of more players the computer plays perfectly
  const strategy = $("strategy");
  if (info.players !== 2) strategy.value = "perfect";
  for (const option of strategy.options) option.disabled = info.players !== 2 && option.value !== "perfect";
  showError(null);
  $("board").hidden = false;
  render();
  loadSummary(variant, n).catch(showError);
  computerReply();
}

async function play(move) {
  clearTimeout(game.timer);
  const info = await api(`/v1/${encodeURIComponent(game.variant)}/positions/${move.position.join(",")}`);
  game.line.push(info);
  game.played.push(move.move);
  render();
  computerReply();
}

function computerToMove() {
  const ply = game.line.length - 1;
  return Number($("opponent").value) === mover(ply) && game.line[ply].moves.length > 0;
}

async function computerMove(info) {
  const strategy = $("strategy").value;
  // perfect: the best move comes first: it wins fastest, or when every move loses, loses slowest
  // (more than two players: it keeps a forced win when there is one)
  if (strategy === "perfect") return info.moves[0];
  if (strategy === "random") return info.moves[Math.floor(Math.random() * info.moves.length)];
  // the move that maximises its chance against a player who moves at random (zeckdb play)
  const answer = await api(`/v1/${encodeURIComponent(game.variant)}/play?position=${info.position.join(",")}` +
    "&p1=best-response&p2=random&distribution=false");
  const [chosen] = answer.p1_moves;
  return info.moves.find((m) => m.move === chosen.move && m.position.join(",") === chosen.position.join(","));
}

function computerReply() {
  if (!computerToMove()) return;
  const ply = game.line.length - 1;
  game.timer = setTimeout(async () => {
    try {
      const move = await computerMove(game.line[ply]);
      if (game.line.length - 1 === ply) await play(move);  // unless the game moved on meanwhile
    } catch (error) {
      showError(error);
    }
  }, 400);
}

function stepBack() {
  clearTimeout(game.timer);
  do {
    if (game.line.length <= 1) break;
    game.line.pop();
    game.played.pop();
  } while (computerToMove());  // back to the last position where it is your move
  render();
}

function render() {
  const ply = game.line.length - 1;
  const info = game.line[ply];
  const player = mover(ply);
  $("where").textContent = shown(`${game.variant}, n = ${info.value}: position ${info.text}`);
  const many = info.players !== 2;
  $("value").innerHTML = "";
  if (many) {
    $("value").append(`Player ${player} of ${info.players} to move; ${forcingText(info.forcing_seat, ply)}.`);
    $("value").className = info.forcing_seat === 1 ? "win" : info.forcing_seat == null ? "none" : "loss";
  } else {
    const verdict = info.outcome === "win" ? "wins" : "loses";
    $("value").append(`Player ${player} to move ${verdict} with perfect play`,
      info.moves.length ? `, the game ending in ${plural(info.remoteness, "move")}.` : ".");
    $("value").className = info.outcome;
  }
  $("facts").textContent = shown(info.moves.length
    ? `Shortest finish ${plural(info.min_remaining, "move")}, longest ${plural(info.max_remaining, "move")}; ` +
      `${info.games_to_end} complete games from here.`
    : "");
  const over = info.moves.length === 0;
  $("result").hidden = !over;
  if (over) {
    const winner = many ? mover(ply - 1) : info.outcome === "win" ? player : other(player);
    $("result").textContent = shown(`Game over after ${plural(ply, "move")}: Player ${winner} wins` +
      (many || info.outcome === "loss" ? ` (Player ${player} has no move).` : "."));
  }
  const list = $("moves");
  list.innerHTML = "";
  const waiting = computerToMove();
  for (const move of info.moves) {
    const button = document.createElement("button");
    button.type = "button";
    if (many) {  // after the move, seats count from the next player
      button.className = move.forcing_seat === info.players ? "win" : move.forcing_seat == null ? "none" : "loss";
      button.textContent = shown(`${move.move} → ${move.text}: then ${forcingText(move.forcing_seat, ply + 1)}`);
    } else {
      const moverWins = move.outcome === "loss";  // the position is lost for the player who moves next
      button.className = moverWins ? "win" : "loss";
      button.textContent = shown(`${move.move} → ${move.text}: ${moverWins ? "wins" : "loses"}, ` +
        `the game ending in ${plural(move.remoteness + 1, "move")}`);
    }
    button.disabled = waiting;
    button.addEventListener("click", () => play(move).catch(showError));
    const item = document.createElement("li");
    item.append(button);
    list.append(item);
  }
  const past = $("history");
  past.innerHTML = "";
  game.played.forEach((name, i) => {
    const item = document.createElement("li");
    item.textContent = shown(`Player ${mover(i)}: ${name} → ${game.line[i + 1].text}`);
    past.append(item);
  });
  $("back").disabled = game.line.length <= 1;
}

async function loadSummary(variant, n) {
  const [row] = await api(`/v1/${encodeURIComponent(variant)}/summary?n=${n}`);
  $("summary-title").textContent = shown(`The start of n = ${n}: ${row.start_position}`);
  const facts = [
    ["winner", row.winner == null ? "no player can force a win" : `Player ${row.winner}`],
    ["shortest game", row.min_length == null ? notKept : plural(row.min_length, "move")],
    ["longest game", row.max_length == null ? notKept : plural(row.max_length, "move")],
    ["complete games", row.games == null ? notKept : row.games],
    ["mean length, random play", row.expected_length == null ? notKept : Number(row.expected_length).toFixed(3)],
    ["positions / moves", `${row.positions.toLocaleString()} / ${row.edges.toLocaleString()}`],
  ];
  const list = $("summary-facts");
  list.innerHTML = "";
  for (const [name, value] of facts) {
    const dt = document.createElement("dt");
    dt.textContent = shown(name);
    const dd = document.createElement("dd");
    dd.textContent = shown(value);
    list.append(dt, dd);
  }
  await drawDistribution();
}

async function drawDistribution() {
  // the figures of `zeckdb plot`, drawn by the server from the same numbers
  const measure = $("measure").value;
  const chosen = `variant=${encodeURIComponent(game.variant)}`;
  $("chart").src = `/v1/plots/length-distribution?${chosen}&n=${game.n}&measure=${measure}`;
  $("chart").alt = `the length distribution of ${game.variant}, n = ${game.n}, under ${measure}, with its Gaussian`;
  $("winners-plot").src = `/v1/plots/winners?${chosen}`;
  $("winners-plot").alt = `who wins ${game.variant} for each n built, and the running fraction of Player 1 wins`;
}

function wire() {
  $("choose").addEventListener("submit", (event) => {
    event.preventDefault();
    startGame($("variant").value, $("n").value).catch(showError);
  });
  $("go").addEventListener("click", () => lookUp($("variant").value, $("position").value).catch(showError));
  $("back").addEventListener("click", stepBack);
  $("opponent").addEventListener("change", () => { render(); computerReply(); });
  $("strategy").addEventListener("change", () => { clearTimeout(game.timer); render(); computerReply(); });
  $("measure").addEventListener("change", () => drawDistribution().catch(showError));
}

async function main() {
  wire();
  await loadVariants();
  const query = new URLSearchParams(location.search);
  const variant = query.get("variant");
  if (variant) $("variant").value = variant;
  if (variant && query.get("position")) {
    $("position").value = query.get("position");
    await lookUp(variant, query.get("position"));
  } else if (variant && query.get("n")) {
    $("n").value = query.get("n");
    await startGame(variant, query.get("n"));
  }
}

main().catch(showError);
