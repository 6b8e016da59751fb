// The invitation's page: taking a seat is a request of its own (a POST), never the opening of
// the link, so a chat program looking at the link ahead of the person takes no seat.
"use strict";

async function join() {
  const matchId = document.body.dataset.match;
  const code = new URLSearchParams(location.search).get("code") || "";
  const error = document.getElementById("error");
  error.textContent = "";
  const answer = await fetch(`/api/matches/${encodeURIComponent(matchId)}/join`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code }),
  });
  const doc = await answer.json();
  if (!answer.ok) {
    error.textContent = doc.error;
    return;
  }
  keepMatch(matchId, document.body.dataset.title, [{ seat: doc.seat, url: doc.url }]);
  location.assign(doc.url);
}

document.getElementById("join").addEventListener("click", join);
document.body.dataset.ready = "yes";
