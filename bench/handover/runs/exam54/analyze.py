import json, glob, os, collections
ASIDE = {"mini-sphinx-9258","oh-mapstruct-3492","cc-speakfree-vscode","pi-trl-grpo-smoke","antigravity-applysense","gemini-cli-agent-teams","cline-export-image-describer2","cline-export-pip-module","specstory-cursor-chefchopsky-e2e"}
R = "/work/exam54"
m = json.load(open(f"{R}/run/blind_mapping.json"))
qs = {}
for f in glob.glob("/work/exam42/questions/*.json"):
    sid = os.path.basename(f)[:-5]
    for q in json.load(open(f))["questions"]: qs[(sid, q["id"])] = q
changed = {os.path.basename(f)[:-3] for f in glob.glob(f"{R}/new/*.md")
           if open(f).read() != open(f"{R}/old/" + os.path.basename(f)).read()}
tot = collections.defaultdict(lambda: collections.Counter()); n = collections.Counter()
for g in glob.glob(f"{R}/grd*/grades/*.json"):
    d = json.load(open(g)); sid = d["transcript_id"]
    for gr in d["grades"]:
        q = qs[(sid, gr["id"])]
        keys = ["all", q["category"], "aside" if sid in ASIDE else "dev", "changed" if sid in changed else "identical",
                "late" if q["position"] >= 0.75 else "early", "sess:" + sid]
        for k in keys:
            n[k] += 1
            for kind, L in m.items():
                tot[k][kind] += gr["scores"][L]
for k in ["all", "task", "changes", "errors", "state", "decisions", "next", "dev", "aside", "changed", "identical", "early", "late"]:
    print(f"{k:10} n={n[k]:3}  new {tot[k]['new']:6.1f} ({100*tot[k]['new']/n[k]:5.1f}%)  old {tot[k]['old']:6.1f} ({100*tot[k]['old']/n[k]:5.1f}%)")
for k in sorted(x for x in n if x.startswith("sess:")):
    if tot[k]['new'] != tot[k]['old']:
        print(f"{k:55} new {tot[k]['new']:5.1f} old {tot[k]['old']:5.1f}")
print("changed docs:", sorted(changed))
