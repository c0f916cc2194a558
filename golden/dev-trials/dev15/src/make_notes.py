"""Generate the trial collection under notes/ beside src/ (fictional content)."""
import os
import random
from pathlib import Path

from docx import Document
from docx.shared import Pt
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

ROOT = Path(__file__).resolve().parent.parent / "notes"


def w(rel, text):
    p = ROOT / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


# 1. Markdown, English: band equipment inventory
w("music/band-gear.md", """# Lantern Hollow — Band Equipment Inventory

Last checked by Maren Thistlewood on 2 May 2024. Everything the band owns or borrows is listed here,
with who looks after it.

## Guitars and amps

- Corvane SG-7 electric guitar (Maren), serial CV-88213, bought in March 2019 for 640 euros.
- Halden P4 bass guitar, owned and maintained by Tobias Reyne. Strings changed every six weeks.
- Brixley 50-watt valve amp head with a 2x12 cabinet. The power valves were replaced in October 2023.
- A spare tuner pedal (Korrin T1), normally in Maren's pedal case.

## Drums

Ines Okafor's Pellam five-piece kit with a 22-inch kick drum. Cymbals: two crashes (16 and 18 inch)
and a 20-inch ride. The snare head is replaced before every recording session.

## PA and microphones

- Sorrel MX-12 mixing desk with 12 input channels and 4 aux sends.
- Four Dunmore D58 dynamic vocal microphones.
- Two wireless handheld microphones; one has a cracked battery compartment and is not used on stage.
- Eight XLR cables of 10 metres, two DI boxes.

## Storage and transport

All gear is stored in rehearsal room 4B at the Kettleworth Arts Depot; the key is kept by Tobias.
For gigs we rent a white Transit van from Harlow Vans at 85 euros a day, fuel not included.
Cymbals travel in the padded bag, never loose in the van.

## Loans and repairs

- The Brixley amp head is at Fenwick Electronics to fix a mains hum; the quote was 120 euros and
  it should be ready by 14 June.
- Maren lent the spare tuner pedal to the band Glass Orchard for their spring tour; due back in July.
""")

# 2. Markdown, English: podcast episode plan
w("media/podcast-season3.md", """# The Quiet Archive — Season 3 Episode Plan

Hosts: Delphine Marsh and Arjun Castellano. Recorded at Studio Nine in Calderbay.

## Schedule

A new episode goes out every second Monday at 6:00 in the morning. Season 2 ended in December;
season 3 starts in February. Episodes are hosted on Wavecrate and pushed to all directories.

## Episodes

### Episode 1 — The Lost Lighthouse Keepers

Guest: Dr. Hollis Penwarden, maritime historian. Recording on 3 February, release on 17 February.
Target length 45 minutes.

### Episode 2 — Radio Ghosts of Brinmoor

Guest: Sunniva Brack, who restored the Brinmoor transmitter logs. Recording on 10 February,
release on 3 March. Needs archival audio clearance from the Brinmoor Museum.

### Episode 3 — The Clockmakers' Strike of 1911

No guest; Arjun narrates from the union minutes. Release on 17 March.

### Episode 4 — Letters Never Sent

Listener-submitted letters read by Delphine. Release on 31 March.

### Episode 5 — The Salt Road

Guest: Tomasz Weyland, walker and author. Release on 14 April.

### Episode 6

Topic undecided; to be discussed at the March planning call.

## Sponsors and budget

Tidemark Coffee sponsors episodes 1 to 4 with 300 euros per episode. The studio costs 55 euros
an hour; editing is done by Arjun at no charge.
""")

# 3. Plain text, English: library loan policy
w("library/loan-policy.txt", """MILLBROOK LANE COMMUNITY LIBRARY
LOAN POLICY (revised January 2024)

1. Who can borrow
Library cards are free for residents of the Millbrook district. Non-residents may buy a card
for 15.00 per year. Children under 12 need a parent or guardian to sign their application.

2. Loan periods
Books: 21 days. Magazines: 14 days. DVDs and Blu-ray discs: 7 days.
A member may have at most 12 items on loan at the same time.

3. Renewals
Items can be renewed twice, in person, by phone or online, unless another member has reserved
them. Reserved items cannot be renewed.

4. Late returns
The late fee is 0.20 per item per day, capped at 6.00 per item. Children's cards are not
charged late fees. A member owing more than 10.00 cannot borrow until the fees are paid.

5. Lost or damaged items
A lost or badly damaged item is charged at its replacement cost plus a processing fee of 3.50.
If a lost item is found and returned within 60 days, the replacement cost is refunded but the
processing fee is not.

6. Interlibrary loans
Items from other libraries can be requested at the desk for 2.00 each. They usually arrive
within two to three weeks and must be returned by the date set by the lending library.

Questions: ask at the front desk or write to the head librarian, Rosalind Achterberg.
""")

# 4. HTML page with nav bar and footer: clinic opening rules
w("health/clinic-hours.html", """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Opening hours and visiting rules — Harborview Family Clinic</title></head>
<body>
<nav class="topnav">
  <a href="/">Home</a> | <a href="/doctors">Our doctors</a> | <a href="/hours">Opening hours</a> |
  <a href="/services">Services</a> | <a href="/contact">Contact</a> | <a href="/login">Patient login</a>
</nav>
<main>
<h1>Opening hours and visiting rules</h1>
<h2>Opening hours</h2>
<p>The clinic is open Monday to Friday from 8:00 to 18:30 and on Saturday from 9:00 to 12:00.
It is closed on Sunday.</p>
<p>Walk-in consultations are only possible before 10:00 on weekdays; after that, please book an
appointment by phone or online.</p>
<h2>Blood tests</h2>
<p>Blood samples are taken on Tuesday and Thursday between 7:30 and 9:30. Most tests require
fasting: do not eat for 10 hours before your appointment; water is allowed.</p>
<h2>Appointments</h2>
<p>Please arrive 10 minutes before your appointment. Patients who are more than 15 minutes late
will be asked to rebook. Cancel at least 24 hours in advance so another patient can take the slot.</p>
<p>Repeat prescriptions are ready two working days after the request.</p>
<h2>In the waiting room</h2>
<p>During the flu season (November to March) masks are required in the waiting room. Each
patient may bring one companion; children under 16 must be accompanied by an adult.</p>
<h2>Our doctors</h2>
<p>Dr. Amara Vellacott (general practice, women's health) and Dr. Jonas Pettigrew (general
practice, sports injuries). Nurse practitioner: Elin Marchetti.</p>
</main>
<footer>
  <p>Harborview Family Clinic · 14 Quay Street, Portlewyn · Out-of-hours line 0800 555 0192</p>
  <p>© 2024 Harborview Family Clinic · <a href="/privacy">Privacy</a> · <a href="/accessibility">Accessibility</a></p>
</footer>
</body>
</html>
""")

# 5. DOCX, English: condo board bylaws
d = Document()
d.add_heading("Ashgrove Court Condominium Association — Bylaws", 0)
d.add_paragraph("As amended at the annual meeting of April 2022.")
d.add_heading("Article 1 — The Board", 1)
d.add_paragraph("The association is managed by a board of five directors elected by the owners for "
                "two-year terms. The current president is Gerald Ossington and the treasurer is "
                "Priya Lindqvist. A director may serve at most three consecutive terms.")
d.add_heading("Article 2 — Meetings", 1)
d.add_paragraph("The annual meeting of owners is held in the second week of April. A quorum is "
                "30 percent of the units, present in person or by proxy. Notice of a meeting is "
                "sent at least 21 days before it.")
d.add_heading("Article 3 — Dues and reserve fund", 1)
d.add_paragraph("Monthly dues are 215 per unit, payable by the 10th of each month. Dues paid after "
                "the 10th carry a late fee of 25. At least 10 percent of the annual budget is "
                "placed in the reserve fund.")
d.add_heading("Article 4 — Renovations and noise", 1)
d.add_paragraph("Renovation work is allowed on weekdays from 8:00 to 17:00 only. An owner must "
                "notify the building manager, Hamid Rourke, at least 14 days before work starts. "
                "Quiet hours are from 22:00 to 7:00 every day.")
d.add_heading("Article 5 — Rentals", 1)
d.add_paragraph("Units may not be rented for periods of less than 30 days. Owners who rent out a "
                "unit must give the tenant a copy of these bylaws.")
d.add_heading("Article 6 — Amendments", 1)
d.add_paragraph("These bylaws can be amended by a two-thirds vote of the owners at an annual or "
                "special meeting.")
(ROOT / "home").mkdir(parents=True, exist_ok=True)
d.save(ROOT / "home/condo-bylaws.docx")

# 6. PDF, English, with a table across two pages: bird survey
styles = getSampleStyleSheet()
(ROOT / "nature").mkdir(parents=True, exist_ok=True)
doc = SimpleDocTemplate(str(ROOT / "nature/bird-survey-2023.pdf"), pagesize=A4,
                        title="Fenmoor Reservoir Winter Bird Survey 2023")
story = [Paragraph("Fenmoor Reservoir Winter Bird Survey 2023", styles["Title"]),
         Paragraph("Survey lead: Oona Halvorsen, with volunteers from the Fenmoor Naturalists' Club. "
                   "Seven survey days were held between 5 January and 24 February 2023 along four "
                   "transects (T1 to T4) around the reservoir. The survey planned for 9 February was "
                   "cancelled because of ice cover on the whole reservoir.", styles["BodyText"]),
         Paragraph("The highest single count was 412 Tufted Duck on 19 January at T2. The rarest "
                   "sighting was one female Smew at T3 on 2 February. Counts are of individual birds.",
                   styles["BodyText"]),
         Spacer(1, 12)]
days = ["5 Jan", "12 Jan", "19 Jan", "26 Jan", "2 Feb", "16 Feb", "24 Feb"]
species = ["Great Crested Grebe", "Little Grebe", "Tufted Duck", "Pochard", "Goldeneye", "Mallard",
           "Coot", "Cormorant", "Grey Heron", "Teal"]
rnd = random.Random(7)
rows = [["Date", "Transect", "Species", "Count", "Notes"]]
for day in days:
    for t in ["T1", "T2", "T3", "T4"]:
        for sp in rnd.sample(species, 3):
            c = rnd.randint(2, 60)
            note = ""
            if day == "19 Jan" and t == "T2" and sp == "Tufted Duck":
                continue
            if day == "24 Feb" and t == "T4" and sp == "Goldeneye":
                continue
            rows.append([day, t, sp, str(c), note])
        if day == "19 Jan" and t == "T2":
            rows.append([day, t, "Tufted Duck", "412", "peak count, rafted in the north bay"])
        if day == "2 Feb" and t == "T3":
            rows.append([day, t, "Smew", "1", "female ('redhead'), seen by two observers"])
        if day == "24 Feb" and t == "T4":
            rows.append([day, t, "Goldeneye", "27", "displaying males"])
tbl = Table(rows, repeatRows=1, colWidths=[50, 55, 120, 40, 200])
tbl.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.grey),
                         ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                         ("FONTSIZE", (0, 0), (-1, -1), 8)]))
story.append(tbl)
story.append(Spacer(1, 12))
story.append(Paragraph("Report written by Oona Halvorsen, 3 March 2023.", styles["BodyText"]))
doc.build(story)

# 7. PDF, English: tutoring invoice
(ROOT / "finance").mkdir(parents=True, exist_ok=True)
doc = SimpleDocTemplate(str(ROOT / "finance/tutoring-invoice-0342.pdf"), pagesize=A4,
                        title="Brightwell Tutoring invoice INV-0342")
inv = [["Item", "Quantity", "Rate", "Amount"],
       ["GCSE maths tutoring, 60-minute sessions", "8 hours", "38.00 / hour", "304.00"],
       ["Physics tutoring, 90-minute sessions (2)", "3 hours", "42.00 / hour", "126.00"],
       ["Practice papers and materials", "1", "12.50", "12.50"],
       ["Subtotal", "", "", "442.50"],
       ["Prepayment discount 5%", "", "", "-22.13"],
       ["Total due", "", "", "420.37"]]
t = Table(inv, colWidths=[220, 70, 90, 70])
t.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.4, colors.grey)]))
doc.build([Paragraph("Brightwell Tutoring — Invoice INV-0342", styles["Title"]),
           Paragraph("Tutor: Callum Ferrier, 7 Wren Row, Ashby Vale. Invoice date: 1 April 2024.",
                     styles["BodyText"]),
           Paragraph("Billed to: Mrs. Nadia Okonjo, for tuition of Leo Okonjo (Year 11), March 2024.",
                     styles["BodyText"]),
           Spacer(1, 12), t, Spacer(1, 12),
           Paragraph("Payment is due by 15 April 2024 by bank transfer to Calder Mutual, account "
                     "Brightwell Tutoring, sort code 40-22-17, account number 55120984. Please quote "
                     "INV-0342. Late payments are charged 2% per month.", styles["BodyText"]),
           Paragraph("Sessions take place on Tuesdays and Thursdays at 17:00 at the student's home.",
                     styles["BodyText"])])

# 8. Plain text, Chinese: farm irrigation log
w("farm/灌溉日志.txt", """青石岭农场 2023 年夏季灌溉日志
负责人：李秀兰

6月3日 东区番茄地滴灌 2.5 小时，用水 18 立方米。土壤偏干。
6月10日 北区玉米地喷灌 4 小时，用水 35 立方米。
6月17日 东区番茄地滴灌 2 小时，用水 15 立方米；西区辣椒地滴灌 1.5 小时，用水 9 立方米。
6月24日 下了一场中雨，停灌一次。
7月2日 水泵 HX-300 出水压力不足，维修工吴建国检查后更换了密封圈，花费 260 元，当天修好。
7月 整月降雨偏少，灌溉改为每三天一次，7月总用水量 412 立方米。
7月20日 北区玉米地出现卷叶，增加一次夜间喷灌。
8月15日 水井水位下降到 11.2 米，比六月初低了 1.8 米，开始限量用水。
8月28日 东区番茄采收结束，东区停止灌溉。

备注：灌溉时间尽量安排在早上 5 点到 7 点，减少蒸发。滴灌带每月检查一次有没有堵塞。
""")

# 9. DOCX, Chinese: pharmacy stock note
d = Document()
d.add_heading("康和社区药房 2024年5月库存盘点说明", 0)
d.add_paragraph("盘点日期：2024年5月30日。盘点人：陈思远；复核：赵敏。")
d.add_heading("一、需要注意的品种", 1)
d.add_paragraph("阿莫西林胶囊库存 320 盒，有效期至 2025年8月，数量充足。")
d.add_paragraph("布洛芬缓释胶囊库存 45 盒，低于安全库存 60 盒，需要尽快补货。")
d.add_paragraph("胰岛素笔 18 支，必须冷藏在 2 到 8 摄氏度，冰箱温度每天早晚各记录一次。")
d.add_paragraph("蒙脱石散库存 96 盒，正常。")
tb = d.add_table(rows=1, cols=3)
tb.style = "Table Grid"
for c, h in zip(tb.rows[0].cells, ["品名", "库存", "状态"]):
    c.text = h
for r in [("阿莫西林胶囊", "320 盒", "充足"), ("布洛芬缓释胶囊", "45 盒", "补货"),
          ("胰岛素笔", "18 支", "冷藏"), ("蒙脱石散", "96 盒", "正常")]:
    cells = tb.add_row().cells
    for c, v in zip(cells, r):
        c.text = v
d.add_heading("二、过期药品处理", 1)
d.add_paragraph("本次发现过期药品 12 盒，已全部退回供应商华泰医药，并登记在退货本上。")
d.add_heading("三、补货与下次盘点", 1)
d.add_paragraph("华泰医药每周二送货，补货单需在周一下午三点前发出。下次盘点定于 6月28日。")
for p in d.paragraphs:
    for r in p.runs:
        r.font.size = Pt(11)
(ROOT / "health").mkdir(parents=True, exist_ok=True)
d.save(ROOT / "health/药房库存.docx")

# 10. Markdown, Chinese: climbing gym safety card
w("sport/攀岩安全须知.md", """# 云崖攀岩馆安全须知卡

## 入场前

首次来馆的攀岩者必须观看安全视频，并通过前台的安全测试后才能攀爬。未满 14 岁的儿童必须有家长全程陪同。

## 抱石区

抱石区的垫子上一次只能有一人攀爬同一条线路。不要在垫子上坐着或者放水杯。下来时尽量爬下来，不要从顶部直接跳下。

## 顶绳与先锋

顶绳攀爬前，攀爬者和保护员必须互相检查：安全带是否扣好、8 字结是否打好、锁扣是否锁上。
先锋攀爬需持有本馆的先锋证，先锋证由馆内教练周海考核发放。

## 装备租借

岩鞋租借每次 15 元，安全带免费。镁粉只能使用粉球，不允许使用散粉。

## 紧急情况

急救箱放在前台右侧，AED 在二楼楼梯口。发生事故请立即通知工作人员，馆内紧急电话为内线 9。
""")

# 11. PDF, Chinese (reportlab CID font): choir rehearsal schedule
pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
zh = ParagraphStyle("zh", fontName="STSong-Light", fontSize=11, leading=16)
zht = ParagraphStyle("zht", fontName="STSong-Light", fontSize=18, leading=24)
doc = SimpleDocTemplate(str(ROOT / "music/合唱团排练安排.pdf"), pagesize=A4,
                        title="晨光社区合唱团 2024 秋季排练安排")
doc.build([Paragraph("晨光社区合唱团 2024 秋季排练安排", zht), Spacer(1, 10),
           Paragraph("指挥：沈慧芳；钢琴伴奏：高远。", zh),
           Paragraph("排练时间：每周四晚上 7:00 到 9:00，地点在文化中心三楼 302 室。", zh),
           Paragraph("本季曲目：《茉莉花》《半个月亮爬上来》《雪花的快乐》。", zh),
           Paragraph("声部长：女高音刘晓晴，男低音王志刚。请各声部长每次排练前点名。", zh),
           Paragraph("会费：每季度 120 元，第一次排练时交给王志刚。", zh),
           Paragraph("演出：12月21日新年音乐会，在东湖剧场演出，下午四点到后台集合。", zh),
           Paragraph("规定：本季缺席排练两次以上的团员不能参加新年音乐会演出。", zh)])

# 12. Markdown, Chinese: piano tuning log
w("home/钢琴调律记录.md", """# 家里钢琴的调律与保养记录

## 基本信息

钢琴是珠江 UP-118 立式钢琴，2016 年购买，放在书房。调律师是孙立明师傅。

## 调律记录

- 2023年3月12日：孙师傅调律，费用 350 元，音高调到 A=440Hz。
- 2024年3月9日：孙师傅调律，费用 380 元，低音区有两根弦偏差较大。
- 下次调律计划在 2024 年 9 月。

## 维修

2023年9月发现中音区 C 键卡键，孙师傅上门更换了键下的毛毡，没有另外收费。

## 保养

书房的湿度保持在 45% 到 60% 之间，梅雨季节开除湿机。钢琴不要靠近暖气片，琴盖不用时要盖好。
""")
print("done")
