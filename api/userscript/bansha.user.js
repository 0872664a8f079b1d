// ==UserScript==
// @name         版杀裁判 · 帖子提交
// @namespace    bansha-referee
// @version      0.1.0
// @description  在贴吧或 Discuz! 帖子页面上读取本页楼层，把新帖提交给版杀裁判，并显示每帖是否收到、有几项发现
// @match        *://tieba.baidu.com/p/*
// @match        *://*/forum.php?mod=viewthread*
// @match        *://*/thread-*-*-*.html
// @grant        GM_xmlhttpRequest
// @grant        GM_getValue
// @grant        GM_setValue
// @connect      __BANSHA_CONNECT__
// @run-at       document-end
// ==/UserScript==

/*
 * Served by the referee at /userscript/bansha.user.js with its address and the game filled in.
 * The director token is typed into the panel once and kept only in the userscript manager's own
 * storage (GM_setValue): it is never written into the page, and it is sent only to SERVICE, by
 * the manager's cross-origin request (GM_xmlhttpRequest), never by the page.
 * Posts are read with the same selectors as the service's importer (docs/forum.md) and keep the
 * forum's own post ids, so a post sent here and imported from a saved page is stored once.
 */
(function () {
  "use strict";

  const SERVICE = "__BANSHA_SERVICE__";
  const GAME = "__BANSHA_GAME__";
  const THREADS = { discussion: "讨论帖", vote: "投票帖", process: "进程帖" };
  const ZONE_OFFSET = "+08:00"; // the forums print Beijing time
  // Tieba emoticon file -> name, filled in from forum/emoticons.yaml (one table for both sides)
  const EMOTICONS = __BANSHA_EMOTICONS__;

  // ---- reading the page -------------------------------------------------------------------

  function textOf(node) {
    // The screener's text: quotes as [quote], images as [img], emoticons by name, <br> as lines.
    const parts = [];
    const walk = (el) => {
      for (const child of el.childNodes) {
        if (child.nodeType === Node.TEXT_NODE) {
          parts.push(child.nodeValue.replace(/\s*[\r\n]+\s*/g, " ").replace(/\u00a0/g, " "));
          continue;
        }
        if (child.nodeType !== Node.ELEMENT_NODE) continue;
        const tag = child.tagName.toLowerCase();
        const cls = child.classList;
        if (["script", "style", "noscript", "iframe", "button"].includes(tag)) continue;
        if (["tip", "aimg_tip", "attach_nopermission", "sign", "a_pr", "locked", "bansha-badge"]
            .some((c) => cls.contains(c))) continue;
        if (tag === "br") {
          parts.push("\n");
        } else if (tag === "img") {
          const smiley = child.hasAttribute("smilieid") || cls.contains("BDE_Smiley") ||
            (child.getAttribute("src") || "").includes("/smiley/");
          if (smiley) {
            const stem = (child.getAttribute("src") || "").split("?")[0].split("/").pop()
              .replace(/\.[a-z]+$/i, "");
            const name = child.getAttribute("alt") || child.getAttribute("title") ||
              EMOTICONS[stem] || stem;
            parts.push("[表情:" + (name || "表情") + "]");
          } else {
            parts.push("[img]");
          }
        } else if (tag === "i" && cls.contains("pstatus")) {
          parts.push("\n" + child.textContent.trim().replace(/\s+/g, " ") + "\n");
        } else if (tag === "blockquote" || (tag === "div" && cls.contains("quote"))) {
          const inner = tag === "div" ? child.querySelector("blockquote") || child : child;
          parts.push("\n[quote]" + textOf(inner) + "[/quote]\n");
        } else {
          const block = ["p", "div", "li", "tr", "table", "ul", "ol"].includes(tag);
          if (block) parts.push("\n");
          walk(child);
          if (block) parts.push("\n");
        }
      }
    };
    walk(node);
    return parts.join("").split("\n").map((l) => l.trim()).join("\n")
      .replace(/\n{3,}/g, "\n\n").trim();
  }

  function forumTime(text) {
    const m = /(\d{4})-(\d{1,2})-(\d{1,2})\s+(\d{1,2}):(\d{2})(?::(\d{2}))?/.exec(text || "");
    if (!m) return null;
    const pad = (v) => String(v || 0).padStart(2, "0");
    return `${m[1]}-${pad(m[2])}-${pad(m[3])}T${pad(m[4])}:${m[5]}:${pad(m[6])}${ZONE_OFFSET}`;
  }

  function quotedPid(el) {
    for (const a of el.querySelectorAll(".quote a[href], blockquote a[href]")) {
      const url = new URL(a.getAttribute("href"), location.href);
      if (url.searchParams.get("goto") === "findpost" && url.searchParams.get("pid")) {
        return url.searchParams.get("pid");
      }
    }
    return null;
  }

  function tiebaPosts() {
    const posts = [];
    for (const floor of document.querySelectorAll("#j_p_postlist div.l_post.j_l_post")) {
      let field;
      try { field = JSON.parse(floor.getAttribute("data-field") || ""); } catch (e) { continue; }
      if (!field || !field.content || !field.content.post_id) continue; // an ad floor
      const pid = String(field.content.post_id);
      const tail = [...floor.querySelectorAll(".post-tail-wrap span")].map((s) => s.textContent);
      const when = forumTime(tail.find((t) => forumTime(t)) || field.content.date);
      const body = floor.querySelector("#post_content_" + pid) ||
        floor.querySelector(".d_post_content");
      const author = (field.author && field.author.user_name) ||
        (floor.querySelector("a.p_author_name") || {}).textContent || "";
      if (!body || !when) continue;
      posts.push({ id: pid, author: author.trim(), at: when, body: textOf(body),
                   floor: field.content.post_no, anchor: floor });
      for (const li of floor.querySelectorAll("li.lzl_single_post.j_lzl_s_p")) {
        let lf;
        try { lf = JSON.parse(li.getAttribute("data-field") || ""); } catch (e) { continue; }
        const content = li.querySelector("span.lzl_content_main");
        const time = li.querySelector("span.lzl_time");
        if (!lf || !lf.spid || !content || !time) continue;
        let text = textOf(content);
        const reply = /^回复\s*([^:：\s][^:：]*?)\s*[:：]\s*/.exec(text);
        if (reply) text = `[quote]回复 ${reply[1]}：[/quote]` + text.slice(reply[0].length);
        posts.push({ id: String(lf.spid), author: lf.user_name || lf.showname || "",
                     at: forumTime(time.textContent), body: text, replyTo: pid,
                     floor: null, replyFloor: field.content.post_no, anchor: li });
      }
    }
    return posts;
  }

  function discuzPosts() {
    const posts = [];
    for (const node of document.querySelectorAll("#postlist div[id^='post_']")) {
      const pid = node.id.slice(5);
      if (!/^\d+$/.test(pid)) continue;
      const message = document.getElementById("postmessage_" + pid);
      if (!message) continue; // a deleted or blocked floor
      const link = [...node.querySelectorAll(".authi a[href]")]
        .find((a) => a.textContent.trim() && /uid|space/.test(a.getAttribute("href")));
      const stamp = document.getElementById("authorposton" + pid);
      if (!link || !stamp) continue;
      const exact = stamp.querySelector("span[title]");
      const number = (document.getElementById("postnum" + pid) || {}).textContent || "";
      const names = { 楼主: 1, 沙发: 2, 板凳: 3, 地板: 4 };
      const floor = parseInt(number, 10) || names[number.trim()] || null;
      const post = { id: pid, author: link.textContent.trim(),
                     at: forumTime(exact ? exact.getAttribute("title") : stamp.textContent),
                     body: textOf(message), floor: floor, anchor: node };
      const quoted = quotedPid(message);
      if (quoted) post.replyTo = quoted;
      posts.push(post);
      // 点评 are left to the importer and the follower (their ids need the page's hashing)
    }
    return posts;
  }

  function readPosts() {
    if (document.getElementById("j_p_postlist")) return tiebaPosts();
    if (document.getElementById("postlist")) return discuzPosts();
    return [];
  }

  // ---- talking to the referee (only through the manager, only to SERVICE) ------------------

  function call(method, path, body) {
    const token = GM_getValue("token:" + GAME, "");
    return new Promise((resolve, reject) => {
      if (!token) { reject(new Error("请先在面板中填入导演令牌")); return; }
      GM_xmlhttpRequest({
        method: method,
        url: SERVICE + path,
        headers: { "Authorization": "Bearer " + token, "Content-Type": "application/json" },
        data: body === undefined ? undefined : JSON.stringify(body),
        onload: (r) => {
          let data = null;
          try { data = JSON.parse(r.responseText); } catch (e) { /* not JSON */ }
          if (r.status >= 200 && r.status < 300) resolve(data);
          else reject(new Error((data && data.error && data.error.message) || "HTTP " + r.status));
        },
        onerror: () => reject(new Error("无法连接裁判服务 " + SERVICE)),
      });
    });
  }

  function accountKey(name) {
    return (name || "").normalize("NFKC").trim().toLowerCase();
  }

  // ---- the panel --------------------------------------------------------------------------

  const panel = document.createElement("div");
  panel.id = "bansha-panel";
  panel.style.cssText = "position:fixed;top:12px;right:12px;z-index:2147483647;width:300px;" +
    "max-height:80vh;overflow:auto;background:#fff;border:1px solid #c9ced8;border-radius:8px;" +
    "box-shadow:0 2px 10px rgba(0,0,0,.15);font:13px/1.5 sans-serif;color:#1d2330;padding:10px";
  const title = document.createElement("div");
  title.style.fontWeight = "bold";
  title.textContent = "版杀裁判 · 游戏 " + GAME;
  const tokenRow = document.createElement("div");
  const tokenInput = document.createElement("input");
  tokenInput.type = "password";
  tokenInput.id = "bansha-token";
  tokenInput.placeholder = "导演令牌（只保存在脚本管理器中）";
  tokenInput.style.width = "190px";
  tokenInput.autocomplete = "off";
  const saveButton = document.createElement("button");
  saveButton.id = "bansha-save-token";
  saveButton.textContent = "保存令牌";
  tokenRow.append(tokenInput, saveButton);
  const threadSelect = document.createElement("select");
  threadSelect.id = "bansha-thread";
  for (const [key, name] of Object.entries(THREADS)) {
    const option = document.createElement("option");
    option.value = key;
    option.textContent = name;
    threadSelect.append(option);
  }
  threadSelect.value = GM_getValue("thread:" + location.pathname + location.search, "discussion");
  const sendButton = document.createElement("button");
  sendButton.id = "bansha-send";
  sendButton.textContent = "提交本页新帖";
  const status = document.createElement("div");
  status.id = "bansha-status";
  const list = document.createElement("ol");
  list.id = "bansha-results";
  list.style.cssText = "margin:6px 0 0;padding-left:20px";
  panel.append(title, tokenRow, threadSelect, sendButton, status, list);
  document.body.append(panel);

  const say = (text) => { status.textContent = text; };
  say(GM_getValue("token:" + GAME, "") ? "令牌已保存。" : "请填入导演令牌并保存。");

  saveButton.addEventListener("click", () => {
    const value = tokenInput.value.trim();
    tokenInput.value = ""; // the page keeps nothing
    if (!value) { say("令牌为空，未保存。"); return; }
    GM_setValue("token:" + GAME, value);
    say("令牌已保存在脚本管理器中。");
  });
  threadSelect.addEventListener("change", () => {
    GM_setValue("thread:" + location.pathname + location.search, threadSelect.value);
  });

  function mark(post, text, colour) {
    const li = document.createElement("li");
    li.className = "bansha-result";
    li.dataset.post = post.id;
    const where = post.floor ? post.floor + "楼" : (post.replyFloor || "?") + "楼·楼中楼";
    li.textContent = `${where} ${post.author}：${text}`;
    li.style.color = colour;
    list.append(li);
    const badge = document.createElement("span");
    badge.className = "bansha-badge";
    badge.textContent = " 【裁判：" + text + "】";
    badge.style.cssText = "color:" + colour + ";font-size:12px";
    post.anchor.append(badge);
  }

  async function send() {
    list.textContent = "";
    for (const old of document.querySelectorAll(".bansha-badge")) old.remove();
    sendButton.disabled = true;
    try {
      const roster = await call("GET", "/forum/api/" + encodeURIComponent(GAME) + "/roster");
      if (roster.ended) { say("游戏已结束，不再提交。"); return; }
      const sentKey = "sent:" + GAME;
      const sent = new Set(JSON.parse(GM_getValue(sentKey, "[]")));
      const batch = [];
      const byId = {};
      for (const post of readPosts()) {
        const character = roster.accounts[accountKey(post.author)];
        if (!character) { mark(post, "未对应角色（请在控制台映射账号）", "#9a5b00"); continue; }
        if (sent.has(post.id)) { mark(post, "之前已提交", "#6b7280"); continue; }
        const body = { forum_post_id: post.id, author: character, thread: threadSelect.value,
                       day: roster.day, body: post.body, posted_at: post.at };
        if (post.replyTo) body.reply_to = post.replyTo;
        batch.push(body);
        byId[post.id] = post;
      }
      if (!batch.length) { say("本页没有新帖。"); return; }
      const answer = await call("POST", "/api/games/" + encodeURIComponent(GAME) + "/posts",
                                { posts: batch });
      let taken = 0;
      for (const r of answer.results) {
        const findings = (r.findings || []).filter((f) => f.category !== "water").length;
        const vote = r.vote ? { counted: "，计票", invalid: "，投票无效", rejected: "，不计票" }[r.vote.status] : "";
        if (r.duplicate) {
          mark(byId[r.forum_post_id], `已存在，${findings} 项发现${vote || ""}`, "#6b7280");
        } else {
          taken += 1;
          mark(byId[r.forum_post_id], `已收到，${findings} 项发现${vote || ""}`,
               findings ? "#d2373c" : "#2a9d5b");
        }
        sent.add(r.forum_post_id);
      }
      GM_setValue(sentKey, JSON.stringify([...sent]));
      say(`提交 ${batch.length} 帖，新收到 ${taken} 帖。`);
    } catch (error) {
      say("未提交：" + error.message);
    } finally {
      sendButton.disabled = false;
    }
  }
  sendButton.addEventListener("click", send);
})();
