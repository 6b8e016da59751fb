// The matches this browser has created or opened, kept in its local storage so that a person who
// closed the page (and lost the link with its seat's token) finds the match again in the lobby.
// The links stay in this browser, as they do in its history; nothing is sent anywhere.
"use strict";

const KEPT_KEY = "metro.matches";
const KEPT_MOST = 50; // the newest kept; older ones are forgotten

function keptMatches() {
  // [{match, title, links: [{seat, url}], invite, kept}], the most recently kept first (invite:
  // the invitation's page, if this browser made the match and it keeps seats for the invited).
  try {
    const kept = JSON.parse(localStorage.getItem(KEPT_KEY) || "[]");
    return Array.isArray(kept) ? kept.filter(wellFormed) : [];
  } catch {
    return []; // unreadable (written by something else): nothing kept
  }
}

function wellFormed(entry) {
  // An entry as keepMatch writes it, its links to this server's play pages only.
  const isLink = (link) =>
    link && (link.seat === null || Number.isInteger(link.seat)) &&
    typeof link.url === "string" && link.url.startsWith("/play/");
  const isInvite = (invite) => invite === undefined || invite === null ||
    (typeof invite === "string" && invite.startsWith("/join/"));
  return (
    entry && typeof entry.match === "string" && typeof entry.title === "string" &&
    typeof entry.kept === "string" && Array.isArray(entry.links) && entry.links.every(isLink) &&
    isInvite(entry.invite)
  );
}

function saveKept(kept) {
  try {
    localStorage.setItem(KEPT_KEY, JSON.stringify(kept.slice(0, KEPT_MOST)));
  } catch {
    // storage full or refused (a private window): the match is simply not kept
  }
}

function keepMatch(match, title, links, invite = null) {
  // Keep (or move to the front) a match with these seats' links ({seat, url}; seat null: watching)
  // and, from the lobby that made it, its invitation.
  const kept = keptMatches();
  const before = kept.find((entry) => entry.match === match);
  const known = before ? before.links : [];
  const merged = [...known.filter((old) => !links.some((link) => link.seat === old.seat)), ...links];
  merged.sort((a, b) => (a.seat === null) - (b.seat === null) || a.seat - b.seat);
  const entry = {
    match,
    title,
    links: merged,
    invite: invite || (before && before.invite) || null,
    kept: new Date().toISOString(),
  };
  saveKept([entry, ...kept.filter((other) => other.match !== match)]);
}

function forgetMatch(match) {
  saveKept(keptMatches().filter((entry) => entry.match !== match));
}
