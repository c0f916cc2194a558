from reportlab.lib.pagesizes import A4
from reportlab.platypus import SimpleDocTemplate, Paragraph, Spacer, Table, PageBreak
from reportlab.lib.styles import getSampleStyleSheet, ParagraphStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
pdfmetrics.registerFont(UnicodeCIDFont("STSong-Light"))
ss = getSampleStyleSheet()
zh = ParagraphStyle("zh", parent=ss["Normal"], fontName="STSong-Light")
doc = SimpleDocTemplate("notes/docs/car-insurance-policy.pdf", pagesize=A4, title="Aldwych Mutual car insurance policy summary")
s = []
s.append(Paragraph("Aldwych Mutual - Motor Policy Summary", ss["Title"]))
s.append(Paragraph("Policy number AM-7730-2291-K. Policyholder: the author of these notes. Vehicle: 2019 Skoda Octavia Combi, registration B-QX 4410.", ss["Normal"]))
s.append(Paragraph("Cover period", ss["Heading2"]))
s.append(Paragraph("The policy runs from 1 January 2025 to 31 December 2025 and renews automatically unless cancelled one month before the end date. The annual premium is 732 EUR, paid monthly at 61 EUR.", ss["Normal"]))
s.append(Paragraph("What is covered", ss["Heading2"]))
s.append(Table([["Cover", "Limit", "Excess"],
                ["Third-party liability", "100 million EUR", "0 EUR"],
                ["Comprehensive (Vollkasko)", "market value", "300 EUR"],
                ["Glass breakage", "full", "150 EUR"],
                ["Roadside assistance", "Europe-wide", "0 EUR"]]))
s.append(PageBreak())
s.append(Paragraph("Claims", ss["Heading2"]))
s.append(Paragraph("Report any accident within 7 days by calling the claims hotline +49 800 555 0142 (free, 24 hours). Photos of the damage and the other party's insurance details speed up the claim. The no-claims discount class is SF 12, which gives a 45% discount on the base premium.", ss["Normal"]))
s.append(Paragraph("Exclusions", ss["Heading2"]))
s.append(Paragraph("Damage while driving under the influence of alcohol, racing events and use as a taxi are not covered. Personal belongings left in the car are not covered.", ss["Normal"]))
s.append(Paragraph("中文摘要", ss["Heading2"]))
s.append(Paragraph("这份车险每年保费 732 欧元，全险的自付额是 300 欧元。出险后必须在 7 天内打理赔热线报案。", zh))
doc.build(s)

import docx
d = docx.Document()
d.core_properties.title = "Lanternfish Labs employee handbook"
d.add_heading("Lanternfish Labs Employee Handbook", 0)
d.add_paragraph("Version 3.2, approved by the People team on 15 January 2025. Lanternfish Labs has its office at Spreeufer 88, Berlin.")
d.add_heading("Working hours", 1)
d.add_paragraph("Core hours are 10:00 to 15:00, Monday to Thursday. Fridays are meeting-free. Remote work is allowed up to three days a week; working from abroad is allowed for up to 20 working days per year after approval by your lead.")
d.add_heading("Leave", 1)
d.add_paragraph("Annual leave depends on years of service:")
t = d.add_table(rows=1, cols=3)
t.rows[0].cells[0].text, t.rows[0].cells[1].text, t.rows[0].cells[2].text = "Years of service", "Leave days", "Carry-over"
for a, b, c in [("0-2", "27", "5 days"), ("3-5", "29", "5 days"), ("6+", "31", "10 days")]:
    r = t.add_row().cells; r[0].text, r[1].text, r[2].text = a, b, c
d.add_paragraph("Sick leave must be reported to your lead before 10:00 on the first day. A doctor's note is needed from the third day of illness.")
d.add_heading("Equipment", 1)
d.add_paragraph("Every employee gets a laptop and a 400 EUR home-office budget once. Lost equipment must be reported to IT (it-help@lanternfish.example) within 24 hours.")
d.add_heading("Learning budget", 1)
d.add_paragraph("Each employee has a learning budget of 1,200 EUR per year for courses, books and conferences. Unused budget does not carry over.")
d.add_heading("中国团队补充说明", 1)
d.add_paragraph("上海办公室的员工按照中国法定节假日休假。每位员工每年有 500 元人民币的体检补贴，需在 11 月 30 日前报销。")
d.save("notes/docs/employee-handbook.docx")
print("ok")
