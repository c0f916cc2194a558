"""Generate the trial knowledge base (fictional content) under ../notes, as kb's dev14 holds it."""
from pathlib import Path

from docx import Document
from docx.shared import Pt
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet, ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

ROOT = Path(__file__).resolve().parent.parent / "notes"


def w(rel: str, text: str) -> Path:
    p = ROOT / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


# ---------------------------------------------------------------- 1 sailing (md, en)
w("sailing/gullwick_sailing_club.md", """---
title: Gullwick Sailing Club - Member Handbook 2025
tags: [sailing, club]
date: 2025-03-02
---
# Gullwick Sailing Club - Member Handbook 2025

## Membership

Full membership costs £420 per year; junior members (under 18) pay £95. Family membership
covers two adults and up to three children for £610. The membership year runs from 1 April
to 31 March, and fees are due by 15 April.

## Boats and moorings

The club owns six Wayfarer dinghies and two RS Quest boats, all kept on the hard at the north
slipway. Members may book a club boat for at most four hours per day through the booking
board in the clubhouse. Private moorings in Hollin Creek are allocated by the mooring officer,
Dervla Quaintance; the waiting list is currently about two seasons long.

## Safety

No one sails single-handed when the wind forecast at Tarrock Point exceeds 22 knots. The
safety boat, a 5.2 m RIB named Pebblewick, is crewed on every Saturday race day. Buoyancy aids
must be worn on the water at all times, and juniors wear them on the pontoon too.

## Racing

The Saturday series starts at 14:00 from the committee boat off Marl Buoy. The race officer
for 2025 is Tobias Wrenfield. Handicaps use the Portsmouth Yardstick numbers published each
January.

## Training

Beginner courses (RYA Level 1) run on the first two weekends of May and June, led by chief
instructor Anneliese Corrow. A course costs £180 for members.
""")

# ---------------------------------------------------------------- 2 API changelog (md, en)
w("software/ferrolink_api_changelog.md", """# Ferrolink Payments API - Changelog

## v3.4.0 - 2025-08-19

- Added `POST /v3/refunds/bulk`, accepting up to 500 refund ids per call.
- Webhook signatures now use HMAC-SHA512; the old SHA-256 signature is still sent in the
  `X-Ferro-Sig-Legacy` header until 2026-01-31.
- The rate limit for sandbox keys was raised from 30 to 60 requests per minute.

## v3.3.2 - 2025-07-02

- Fixed: `GET /v3/payouts` returned duplicate rows when `page_size` exceeded 200.
- Removed the currency code `HRK` from the list of supported currencies.

## v3.3.0 - 2025-05-14

- New field `settlement_eta` on payout objects (an ISO 8601 timestamp).
- Deprecated: the `/v2/charges` endpoints. They will be switched off on 2025-12-01.
- Idempotency keys are now kept for 48 hours (previously 24 hours).

## v3.2.0 - 2025-03-03

- Released the Python SDK `ferrolink-py` 2.0 with an async client.
- The default timeout of the Node SDK was lowered to 20 seconds.
""")

# ---------------------------------------------------------------- 3 beekeeping (txt, en)
w("bees/thornacre_hive_log.txt", """Thornacre apiary - hive log 2025
Kept by Maelis Ortegrove. Three colonies: Hive 1 (Lindenkeep), Hive 2 (Saltmarrow), Hive 3 (Fennick).

2025-04-06  Hive 1 (Lindenkeep): first full inspection of the year. Queen seen and marked blue.
            Seven frames of brood. Added a super.
2025-04-20  Hive 2 (Saltmarrow): queen cells found on frame 4, so I did an artificial swarm;
            the old queen was moved to the nuc box.
2025-05-11  Hive 3 (Fennick): chalkbrood on two frames, replaced with drawn comb. Temper calm.
2025-06-14  Harvest from Hive 1: 11.5 kg of spring honey, moisture 17.8 % by refractometer.
2025-07-27  Varroa count on Hive 2: 9 mites per 300 bees by alcohol wash. Treated with
            oxalic acid strips.
2025-08-30  Harvest from Hive 2 and Hive 3: 18 kg combined, heather honey. Sold to Pellow's farm
            shop at £9 per jar.
2025-09-21  Fed all hives 2:1 syrup, 6 litres each. Mouse guards fitted on Hive 3.
""")

# ---------------------------------------------------------------- 4 board game club (txt, en)
w("clubs/corvid_and_dice_minutes.txt", """CORVID & DICE BOARD GAME CLUB
Minutes of the general meeting, Friday 3 October 2025

Present: Oswin Harrowgate (treasurer), Lisbet Quarrie (chair), Fen Adebayo-Marsh (librarian),
and 19 members.

1. Finances. The treasurer reported a bank balance of £612.40. The annual fee stays at £25;
   members who join after 1 March pay £12.50 for the rest of the year.
2. Venue. From November the club moves to the back room of The Brass Lantern on Weir Street.
   Meetings will be on Thursdays from 19:00 to 22:30.
3. Library. The game library now holds 143 games. Members may borrow at most two games at a
   time, for one week. The damaged copy of Tidebound Empires will be replaced.
4. Tournament. The Spires of Quell tournament is on Saturday 15 November. Entry costs £5, with
   at most 24 players; the winner receives an engraved pewter trophy.
5. Any other business. Lisbet Quarrie will ask the council about a grant for a games cupboard.

Next general meeting: Thursday 8 January 2026.
""")

# ---------------------------------------------------------------- 5 cinema (html, en)
w("cinema/orchid_lane_schedule.html", """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Orchid Lane Picturehouse - What's on, 10-16 November 2025</title>
<style>table{border-collapse:collapse} td,th{border:1px solid #999;padding:4px}</style></head>
<body>
<nav><a href="/">Home</a> | <a href="/membership">Membership</a> | <a href="/contact">Contact</a></nav>
<main>
<h1>What's on: 10-16 November 2025</h1>
<p>Orchid Lane Picturehouse, 3 Orchid Lane, Brindlecombe. Three screens, box office opens
30 minutes before the first showing.</p>
<h2>Showings</h2>
<table>
<thead><tr><th>Film</th><th>Screen</th><th>Daily times</th><th>Rating</th><th>Runtime</th></tr></thead>
<tbody>
<tr><td>The Lantern Keeper</td><td>Screen 1</td><td>14:10, 18:30, 21:00</td><td>12A</td><td>118 min</td></tr>
<tr><td>Harbour of Glass</td><td>Screen 2</td><td>15:45, 20:15</td><td>15</td><td>104 min</td></tr>
<tr><td>Moss and Thunder</td><td>Screen 3</td><td>11:00, 13:20</td><td>PG</td><td>88 min</td></tr>
<tr><td>Quiet Ledger (documentary)</td><td>Screen 2</td><td>18:00, Thursday only</td><td>12A</td><td>96 min</td></tr>
</tbody></table>
<h2>Tickets</h2>
<p>Adult £11.50, concession £8.50, child (under 14) £6. On Silver Screen Tuesday, guests over
60 pay £5 for any showing before 17:00.</p>
<h2>Events</h2>
<p>The Thursday showing of Quiet Ledger is followed by a Q&amp;A with the producer, Hesper Valloway.</p>
</main>
<footer>&copy; 2025 Orchid Lane Picturehouse Ltd.</footer>
</body></html>
""")

# ---------------------------------------------------------------- 6 ferry (md, zh)
w("ferry/青螺岛渡轮时刻表.md", """---
title: 鹭江码头—青螺岛 渡轮冬季时刻表
tags: [交通, 渡轮]
date: 2025-10-20
---
# 鹭江码头—青螺岛 渡轮冬季时刻表

本时刻表自 2025 年 11 月 1 日起执行，至 2026 年 3 月 31 日止。单程航行时间约 50 分钟。

## 班次

| 班次 | 鹭江码头开 | 青螺岛开 | 船名 |
| --- | --- | --- | --- |
| 1 | 07:10 | 08:20 | 海鸥三号 |
| 2 | 09:40 | 11:00 | 白鹭号 |
| 3 | 13:00 | 14:20 | 海鸥三号 |
| 4 | 16:10 | 17:30 | 白鹭号 |

## 票价

成人单程 35 元；身高 1.2 米以下儿童免票，1.2 米至 1.5 米儿童半价。摩托车随船每辆 20 元，
小汽车不能上船。

## 注意事项

遇七级以上大风或大雾，所有班次停航，停航信息在开船前一小时发布。售票电话 0596-7731024。
""")

# ---------------------------------------------------------------- 7 kindergarten (txt, zh)
w("kindergarten/星芽幼儿园第12周食谱.txt", """星芽幼儿园 第 12 周带量食谱（2025 年 11 月 17 日—11 月 21 日）
营养师：林若溪

星期一  早点：小米粥、鸡蛋饼    午餐：胡萝卜炒鸡丁、米饭、紫菜蛋花汤    午点：香蕉
星期二  早点：牛奶、全麦面包    午餐：清蒸鲈鱼、杂粮饭、冬瓜汤          午点：苹果
星期三  早点：豆浆、南瓜馒头    午餐：番茄炖牛腩、米饭、清炒西兰花      午点：酸奶
星期四  早点：牛奶、燕麦饼干    午餐：香菇鸡肉饺子、白菜豆腐汤          午点：橙子
星期五  早点：红枣粥、花卷      午餐：虾仁炒饭、丝瓜蛋汤                午点：梨

说明：
1. 每日午餐热量约 450 千卡，蛋白质约 18 克。
2. 小二班有 2 名幼儿对花生过敏，本周食谱不含花生；星期五的虾仁炒饭为对虾过敏的幼儿改为鸡蛋炒饭。
3. 家长如有饮食要求，请在每周四前告知班主任。
""")

# ---------------------------------------------------------------- 8 solar (md, zh)
w("solar/梧桐里27号光伏安装记录.md", """# 梧桐里 27 号 屋顶光伏安装记录

业主：邵明澜　　安装单位：晴川新能源有限公司　　项目编号：QC-2025-0417

## 系统配置

- 组件：单晶硅组件 18 块，型号 QC-440M，每块 440 W，总装机容量 7.92 kW。
- 逆变器：QC-INV8 组串式逆变器一台，额定功率 8 kW。
- 屋顶朝向南偏西 15 度，组件倾角 25 度。

## 施工与并网

2025 年 5 月 12 日至 13 日完成支架与组件安装，5 月 20 日电力公司验收，2025 年 5 月 28 日正式并网发电。

## 费用与质保

总费用 31,680 元，获得区级补贴 3,000 元。组件质保 25 年，逆变器质保 10 年，施工质保 5 年。

## 运行情况

并网后第一个月（6 月）发电 842 度，全部自发自用、余电上网。
""")

# ---------------------------------------------------------------- 9 hackathon (html, zh)
w("hackathon/潮汐杯黑客松通知.html", """<!DOCTYPE html>
<html lang="zh-CN"><head><meta charset="utf-8"><title>第三届“潮汐杯”黑客松报名通知</title></head>
<body>
<header><a href="/">滨城创客中心</a> · <a href="/events">活动</a></header>
<article>
<h1>第三届“潮汐杯”黑客松报名通知</h1>
<p>第三届“潮汐杯”黑客松将于 2025 年 12 月 6 日至 7 日在滨城创客中心三楼举办，比赛连续进行 32 小时。
本届主题为“城市无障碍出行”。</p>
<h2>参赛要求</h2>
<ul>
<li>每支队伍 2 至 5 人，可跨校、跨公司组队。</li>
<li>报名截止日期为 2025 年 11 月 28 日，逾期不再接受报名。</li>
<li>作品须在现场完成，可以使用开源代码，但须注明来源。</li>
</ul>
<h2>奖项</h2>
<p>一等奖 1 名，奖金 20,000 元；二等奖 2 名，各 8,000 元；三等奖 3 名，各 3,000 元。</p>
<h2>评审与后勤</h2>
<p>评委会由五位评委组成，主席为柯一苇。主办方提供两天的午餐和晚餐，现场提供无线网络和休息区。</p>
</article>
<footer>滨城创客中心 版权所有</footer>
</body></html>
""")


# ---------------------------------------------------------------- 10 warehouse PDF (table across 2 pages)
def footer(canvas, doc):
    canvas.saveState()
    canvas.setFont("Helvetica", 8)
    canvas.drawString(20 * mm, 10 * mm, "Brackenford Depot - Stock count Q3 2025")
    canvas.drawRightString(190 * mm, 10 * mm, f"Page {doc.page}")
    canvas.restoreState()


ITEMS = [
    ("Galvanised hinge 75 mm", "Kestrow Fixings"), ("Galvanised hinge 100 mm", "Kestrow Fixings"),
    ("Coach bolt M10 x 120", "Kestrow Fixings"), ("Wood screw 5 x 60 (box 200)", "Kestrow Fixings"),
    ("Cable tie 300 mm (bag 100)", "Orrin Electrical"), ("Junction box IP65", "Orrin Electrical"),
    ("LED batten 1500 mm", "Orrin Electrical"), ("Twin and earth 2.5 mm (50 m)", "Orrin Electrical"),
    ("Masking tape 48 mm", "Pallister Supplies"), ("Duct tape silver 50 m", "Pallister Supplies"),
    ("Pallet wrap 500 mm", "Pallister Supplies"), ("Bubble wrap roll 750 mm", "Pallister Supplies"),
    ("Cardboard box 450x300x300", "Pallister Supplies"), ("Stretch film dispenser", "Pallister Supplies"),
    ("Nitrile gloves L (box 100)", "Hobbard Safety"), ("Hi-vis vest XL", "Hobbard Safety"),
    ("Safety boots size 9", "Hobbard Safety"), ("Ear defenders", "Hobbard Safety"),
    ("Hard hat white", "Hobbard Safety"), ("First aid kit (20 person)", "Hobbard Safety"),
    ("Sack truck 250 kg", "Denholm Handling"), ("Pallet truck 2500 kg", "Denholm Handling"),
    ("Step ladder 6 tread", "Denholm Handling"), ("Kick stool", "Denholm Handling"),
    ("Spill kit 50 L", "Hobbard Safety"), ("Absorbent granules 20 kg", "Hobbard Safety"),
    ("PVC pipe 40 mm x 3 m", "Tellworth Plumbing"), ("Compression elbow 15 mm", "Tellworth Plumbing"),
    ("Copper pipe 22 mm x 3 m", "Tellworth Plumbing"), ("Ball valve 22 mm", "Tellworth Plumbing"),
    ("Silicone sealant clear", "Tellworth Plumbing"), ("PTFE tape", "Tellworth Plumbing"),
    ("Exterior paint white 5 L", "Marrick Coatings"), ("Wood stain oak 2.5 L", "Marrick Coatings"),
    ("Paint roller 9 inch", "Marrick Coatings"), ("Dust sheet 12 x 9 ft", "Marrick Coatings"),
    ("Tarpaulin 4 x 6 m", "Pallister Supplies"), ("Ratchet strap 5 m", "Denholm Handling"),
    ("Bungee cord 60 cm", "Denholm Handling"), ("Padlock 40 mm", "Kestrow Fixings"),
    ("Hasp and staple 150 mm", "Kestrow Fixings"), ("Door closer size 3", "Kestrow Fixings"),
    ("Fire extinguisher CO2 2 kg", "Hobbard Safety"), ("Smoke alarm 10-year", "Orrin Electrical"),
    ("Extension reel 25 m", "Orrin Electrical"), ("Work light LED 50 W", "Orrin Electrical"),
    ("Sandpaper 120 grit (pack 50)", "Marrick Coatings"), ("Wire brush", "Marrick Coatings"),
    ("Builders bucket 14 L", "Pallister Supplies"), ("Wheelbarrow 85 L", "Denholm Handling"),
    ("Shovel round mouth", "Denholm Handling"), ("Rubber mallet", "Kestrow Fixings"),
    ("Spirit level 1200 mm", "Kestrow Fixings"), ("Tape measure 8 m", "Kestrow Fixings"),
    ("Pipe lagging 22 mm", "Tellworth Plumbing"), ("Radiator valve set", "Tellworth Plumbing"),
    ("Floor cleaner 5 L", "Pallister Supplies"), ("Blue roll (case 6)", "Pallister Supplies"),
]


def inventory_rows():
    rows = []
    for i, (name, supplier) in enumerate(ITEMS):
        sku = f"BR-{1000 + 37 * i + (i * i) % 11}"
        aisle = "ABCDEFGH"[i % 8]
        bin_ = f"{aisle}-{(i * 7) % 30 + 1:02d}"
        qty = (i * 53 + 17) % 900 + 4
        reorder = ((i * 29) % 20 + 1) * 10
        rows.append([sku, name, bin_, str(qty), str(reorder), supplier])
    return rows


def make_inventory_pdf():
    path = ROOT / "warehouse" / "brackenford_stock_count_q3.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    ss = getSampleStyleSheet()
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="Brackenford Depot - Stock count Q3 2025",
                            author="Imogen Vashti", topMargin=18 * mm, bottomMargin=18 * mm)
    story = [
        Paragraph("Brackenford Depot - Stock count Q3 2025", ss["Title"]),
        Paragraph("The full stock count of the Brackenford Depot (Unit 4, Millrace Trading Estate) was "
                  "carried out on 27 and 28 September 2025 by Imogen Vashti and two temporary counters. "
                  "The table lists every stocked line with its bin location, the quantity counted and the "
                  "reorder level agreed with purchasing.", ss["BodyText"]),
        Spacer(1, 6 * mm),
    ]
    header = ["SKU", "Item", "Bin", "Qty on hand", "Reorder level", "Supplier"]
    data = [header] + inventory_rows()
    t = Table(data, colWidths=[20 * mm, 58 * mm, 16 * mm, 22 * mm, 24 * mm, 35 * mm], repeatRows=0)
    t.setStyle(TableStyle([
        ("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
        ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
        ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
        ("FONTSIZE", (0, 0), (-1, -1), 8.5),
    ]))
    story += [t, Spacer(1, 6 * mm),
              Paragraph("Discrepancies", ss["Heading2"]),
              Paragraph("Net shrinkage against the book stock was 0.7 % by value. The largest gap was on "
                        "nitrile gloves, where 3 boxes were missing from the bin. Lines below their reorder "
                        "level were passed to purchasing on 29 September 2025.", ss["BodyText"])]
    doc.build(story, onFirstPage=footer, onLaterPages=footer)
    return path


# ---------------------------------------------------------------- 11 grant report PDF (multi-section)
def make_grant_pdf():
    path = ROOT / "research" / "saltmarsh_grant_interim_report.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    ss = getSampleStyleSheet()
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="Interim report - Grant NRF-2291",
                            author="Priyamvada Hollis-Wren")
    P = lambda t: Paragraph(t, ss["BodyText"])  # noqa: E731
    H = lambda t: Paragraph(t, ss["Heading1"])  # noqa: E731
    story = [
        Paragraph("Interim Report: Coastal Salt-Marsh Carbon Project (Grant NRF-2291)", ss["Title"]),
        P("Principal investigator: Dr Priyamvada Hollis-Wren, School of Earth Sciences, University of "
          "Tidemoor. Reporting period: 1 October 2024 to 30 September 2025."),
        H("1. Summary"),
        P("The project measures how much carbon the salt marshes of the Skerrow estuary store in their "
          "sediments. In its first year the team collected 84 sediment cores from three marshes: Skelly "
          "Flats, Orme Saltings and Bramblehithe. The mean carbon burial rate across the three marshes is "
          "1.9 tonnes of carbon per hectare per year."),
        H("2. Objectives"),
        P("(a) Map sediment carbon stocks at 50 m resolution; (b) measure methane and CO2 fluxes with "
          "automated chambers through a full year; (c) model how the marshes respond to 0.5 m of sea "
          "level rise."),
        H("3. Progress"),
        P("Objective (a) is 60 % complete. The automated flux chambers were installed in March 2025 and "
          "have logged 4,100 hours of measurements. A storm on 18 January 2025 destroyed two of the six "
          "monitoring stations at Orme Saltings; both were rebuilt by April."),
        H("4. Budget"),
        P("The total award is £318,000 over three years. Expenditure to date is £141,250, of which "
          "£46,000 was equipment (the gas flux chambers and a field spectrometer), £71,900 staff costs "
          "and £23,350 travel and consumables. Spending is 4 % below the profile agreed with the funder."),
        H("5. Personnel"),
        P("Dr Emeka Loveridge joined as postdoctoral researcher in February 2025. Signe Arkwright began "
          "her PhD on the project in October 2024. Field support is provided by the Skerrow Wildlife Trust."),
        H("6. Risks and next steps"),
        P("The main risk is access to Bramblehithe, which is closed to visitors during the bird nesting "
          "season from April to July. Year two will complete the carbon map and start the sea-level "
          "model. The final report is due on 30 June 2027."),
    ]
    doc.build(story)
    return path


# ---------------------------------------------------------------- 12 language school PDF (zh)
def make_school_pdf():
    pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
    path = ROOT / "school" / "枫桥语言学校2025秋季课程表.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    ss = getSampleStyleSheet()
    body = ParagraphStyle("zh", parent=ss["BodyText"], fontName="STSong-Light", fontSize=10.5, leading=16)
    title = ParagraphStyle("zht", parent=ss["Title"], fontName="STSong-Light")
    h = ParagraphStyle("zhh", parent=ss["Heading2"], fontName="STSong-Light")
    doc = SimpleDocTemplate(str(path), pagesize=A4, title="枫桥语言学校 2025 秋季课程表")
    data = [["课程", "教师", "上课时间", "教室", "学费（元/学期）"],
            ["日语初级", "森田遥", "周一、周三 19:00-20:30", "302", "2,880"],
            ["西班牙语中级", "马蕾", "周二、周四 18:30-20:00", "205", "3,200"],
            ["法语入门", "顾清禾", "周六 09:30-12:00", "301", "2,600"],
            ["德语 B1", "沈若澄", "周二、周五 19:00-21:00", "207", "3,600"],
            ["韩语口语", "朴惠真", "周日 14:00-16:00", "302", "2,400"]]
    t = Table(data, colWidths=[30 * mm, 22 * mm, 48 * mm, 16 * mm, 32 * mm])
    t.setStyle(TableStyle([("FONTNAME", (0, 0), (-1, -1), "STSong-Light"),
                           ("GRID", (0, 0), (-1, -1), 0.5, colors.grey)]))
    story = [Paragraph("枫桥语言学校 2025 秋季课程表", title),
             Paragraph("本学期共 16 周，2025 年 9 月 8 日开课，12 月 28 日结课。所有课程每班不超过 12 人。", body),
             Paragraph("课程安排", h), t, Spacer(1, 5 * mm),
             Paragraph("报名与退费", h),
             Paragraph("报名请到前台或致电 021-6688 4172。开课后两周内申请退课，可退还学费的 80%；"
                       "开课两周后不再退费，但可以保留学籍到下一学期。", body),
             Paragraph("教学楼说明", h),
             Paragraph("教室 2 开头的在二楼，3 开头的在三楼。三楼的自习室每天开放到晚上 21:30。", body)]
    doc.build(story)
    return path


# ---------------------------------------------------------------- 13 photo studio DOCX (en)
def make_studio_docx():
    path = ROOT / "studio" / "lumenfold_price_list_2025.docx"
    path.parent.mkdir(parents=True, exist_ok=True)
    d = Document()
    d.core_properties.title = "Lumenfold Photo Studio - Price list 2025"
    d.add_heading("Lumenfold Photo Studio - Price list 2025", 0)
    d.add_paragraph("Lumenfold Photo Studio, 14 Copperleigh Yard, Hadstow. All prices include VAT.")
    d.add_heading("Portrait and product packages", 1)
    rows = [("Package", "Session length", "Edited images", "Price"),
            ("Headshot Basic", "30 minutes", "5", "£85"),
            ("Headshot Pro", "60 minutes", "12", "£160"),
            ("Family Portrait", "90 minutes", "20", "£240"),
            ("Newborn", "3 hours", "15", "£295"),
            ("Product (per 10 items)", "-", "10", "£120")]
    t = d.add_table(rows=len(rows), cols=4)
    t.style = "Table Grid"
    for r, row in enumerate(rows):
        for c, val in enumerate(row):
            t.cell(r, c).text = val
    d.add_heading("Extras", 1)
    d.add_paragraph("Each extra edited image costs £12. Prints start at £18 for an A4 print on matte paper.")
    d.add_paragraph("Studio hire without a photographer is £45 per hour, with a minimum booking of two hours; "
                    "lights, backdrops and the changing room are included.")
    d.add_heading("Booking terms", 1)
    d.add_paragraph("A deposit of 30 % secures the date and is not refundable. Sessions can be moved free of "
                    "charge up to 48 hours before the start; later changes cost £25. The studio manager, "
                    "Corentin Ashby-Lowe, confirms every booking by email within one working day.")
    d.save(path)
    return path


# ---------------------------------------------------------------- 14 vineyard DOCX (zh)
def make_vineyard_docx():
    path = ROOT / "vineyard" / "云溪酒庄2025采收记录.docx"
    path.parent.mkdir(parents=True, exist_ok=True)
    d = Document()
    d.core_properties.title = "云溪酒庄 2025 年葡萄采收记录"
    d.add_heading("云溪酒庄 2025 年葡萄采收记录", 0)
    d.add_paragraph("记录人：贺兰舟（酿酒师）。本年度共有三块地采收，采收工人 36 人，全部手工采摘。")
    d.add_heading("各地块采收情况", 1)
    rows = [("地块", "品种", "采收日期", "产量（吨）", "糖度（°Brix）"),
            ("A", "赤霞珠", "9 月 28 日", "12.4", "24.1"),
            ("B", "霞多丽", "9 月 3 日", "8.7", "22.3"),
            ("C", "马瑟兰", "10 月 6 日", "5.2", "25.0")]
    t = d.add_table(rows=len(rows), cols=5)
    t.style = "Table Grid"
    for r, row in enumerate(rows):
        for c, val in enumerate(row):
            t.cell(r, c).text = val
    d.add_heading("天气与备注", 1)
    d.add_paragraph("9 月 16 日至 17 日连续降雨，暂停采收两天。B 地块的霞多丽全部用于酿造起泡酒，"
                    "A 地块的赤霞珠进入法国橡木桶陈酿 18 个月。")
    d.add_paragraph("今年总产量 26.3 吨，比去年略有增加。")
    for p in d.paragraphs:
        for r in p.runs:
            r.font.size = Pt(11)
    d.save(path)
    return path


if __name__ == "__main__":
    for f in (make_inventory_pdf, make_grant_pdf, make_school_pdf, make_studio_docx, make_vineyard_docx):
        print(f())
    for p in sorted(ROOT.rglob("*")):
        if p.is_file():
            print(p.relative_to(ROOT), p.stat().st_size)
