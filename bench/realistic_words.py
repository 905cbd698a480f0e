"""The words of the realistic benchmark catalogue (bench/realistic.py): 30 domains, each the
namespace of its tools, with ten kinds of record each.

A domain says who its records belong to (the account the run acts for: a patient, a tenant),
who works on them (the staff an assignment names, with the code of their badge), what the
lines of a new record hold, the host of its partner portal, its sites and its labels. A
record says its name (the last word unique in the catalogue, so no two records' tools read
as neighbours), the prefix of its number, its kind (what its statuses, amounts and
cancellation are) and the verb that makes one ("book an appointment", "issue a payslip").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Kind:
    """What records of one kind share: their statuses, their measure, how one is undone."""

    statuses: tuple[str, ...]
    measure: tuple[str, str, float]  # return field, its words, its largest value
    cancel: str  # the verb of the tool that undoes one
    reasons: tuple[str, ...]


KINDS = {
    "booking": Kind(
        ("requested", "confirmed", "completed", "cancelled"),
        ("duration_min", "How long it lasts, in minutes", 480),
        "cancel",
        ("requested_by_{owner}", "no_show", "double_booked", "staff_unavailable"),
    ),
    "document": Kind(
        ("draft", "issued", "sent", "withdrawn"),
        ("amount_eur", "Its amount, in euros", 100000),
        "void",
        ("issued_in_error", "duplicate", "replaced", "requested_by_{owner}"),
    ),
    "case": Kind(
        ("open", "in_progress", "waiting", "resolved", "closed"),
        ("age_days", "Days since it was opened", 3650),
        "close",
        ("resolved_elsewhere", "duplicate", "withdrawn_by_{owner}", "no_response"),
    ),
    "item": Kind(
        ("available", "reserved", "in_use", "retired"),
        ("quantity_units", "How many units it holds", 10000),
        "remove",
        ("lost", "damaged", "sold", "obsolete"),
    ),
    "request": Kind(
        ("submitted", "under_review", "approved", "rejected", "withdrawn"),
        ("amount_eur", "The amount asked for, in euros", 50000),
        "cancel",
        ("no_longer_needed", "duplicate", "made_in_error", "requested_by_{owner}"),
    ),
}


@dataclass(frozen=True, slots=True)
class Record:
    """One kind of record of a domain: "care_plan CPL case draft"."""

    name: str  # snake_case: care_plan
    prefix: str  # of its number: CPL-1234
    kind: str  # a key of KINDS
    create: str  # the verb that makes one: draft
    plural: str  # snake_case: care_plans

    @property
    def words(self) -> str:
        return self.name.replace("_", " ")

    @property
    def plural_words(self) -> str:
        return self.plural.replace("_", " ")


def plural(name: str) -> str:
    head, _, last = name.rpartition("_")
    if last.endswith(("s", "x", "ch", "sh")):
        last += "es"
    elif last.endswith("y") and last[-2:-1] not in "aeiou":
        last = last[:-1] + "ies"
    elif last.endswith("f"):
        last = last[:-1] + "ves"
    else:
        last += "s"
    return f"{head}_{last}" if head else last


def _record(line: str) -> Record:
    name, prefix, kind, create = line.split()
    return Record(name, prefix, kind, create, plural(name))


@dataclass(frozen=True, slots=True)
class Domain:
    key: str  # snake_case, its namespace: clinic
    owner: str  # whose records these are: patient
    staff: tuple[str, str]  # who works on them, and their badge prefix: clinician, CLN
    item: tuple[
        str, str
    ]  # what a line of a new record names, and its code: procedure, PRC
    host: str  # the partner portal
    sites: tuple[str, ...]
    labels: tuple[str, ...]
    records: tuple[Record, ...]


def _domain(
    key: str,
    owner: str,
    staff: str,
    item: str,
    host: str,
    sites: str,
    labels: str,
    records: str,
) -> Domain:
    staff_name, staff_prefix = staff.rsplit(" ", 1)
    item_name, item_prefix = item.rsplit(" ", 1)
    return Domain(
        key,
        owner,
        (staff_name, staff_prefix),
        (item_name, item_prefix),
        host,
        tuple(sites.split()),
        tuple(labels.split()),
        tuple(
            _record(entry)
            for entry in records.replace("/", "\n").split("\n")
            if entry.strip()
        ),
    )


DOMAINS = (
    _domain(
        "clinic", "patient", "clinician CLN", "procedure PRC",
        "records.clinic.example.com", "north_wing south_wing outpatients",
        "urgent follow_up insurance_pending interpreter_needed",
        """
        appointment APT booking book / prescription RX document issue
        referral REF request create / vaccination VAC booking schedule
        specimen SPC item register / consultation CON booking book
        care_plan CPL case draft / allergy ALG case record
        scan SCN booking schedule / triage TRG case open
        """,
    ),
    _domain(
        "pharmacy", "customer", "pharmacist PHA", "medicine MED",
        "wholesale.pharmacy.example.com", "high_street station_road hospital_kiosk",
        "controlled_drug cold_chain home_delivery repeat",
        """
        refill RFL request submit / flu_jab JAB booking book
        recall RCL case issue / formulary FRM item add
        interaction INT case log / counselling CNS booking schedule
        delivery_slot DSL booking reserve / shortage SHT case log
        substitution SUB request propose / blister_pack BLP item make
        """,
    ),
    _domain(
        "dental", "patient", "dentist DEN", "treatment TRT",
        "lab.dental.example.com", "main_surgery annex mobile_unit",
        "anxious_patient sedation payment_plan recall_due",
        """
        checkup CHK booking book / filling FIL item record
        crown CRN item plan / implant IMP item schedule
        cleaning CLN booking book / radiograph RDG item record
        aligner ALN item create / denture DNT item create
        extraction EXT booking schedule / root_canal RCN booking schedule
        """,
    ),
    _domain(
        "veterinary", "pet owner", "vet VET", "medicine MED",
        "registry.vets.example.com", "town_practice farm_clinic emergency_unit",
        "aggressive_animal insured senior_pet exotic",
        """
        booster BST booking schedule / kennel_stay KNL booking book
        microchip MCP item register / neutering NTR booking book
        grooming GRM booking book / deworming DWM booking schedule
        litter LTR case register / surgery SRG booking schedule
        hoof_trim HTR booking book / boarding BRD booking reserve
        """,
    ),
    _domain(
        "shop", "customer", "clerk CLK", "product SKU",
        "partners.shop.example.com", "web_store city_store outlet",
        "gift vip fragile express",
        """
        order ORD document place / cart CRT item create
        coupon CPN item issue / wishlist WSH item create
        rating RTG item add / exchange EXC request submit
        preorder PRE document place / bundle BND item create
        price_alert PAL item create / banner BNR item create
        """,
    ),
    _domain(
        "warehouse", "client", "picker PCK", "article ART",
        "carriers.warehouse.example.com", "hall_a hall_b cold_store yard",
        "hazardous oversized fragile high_value",
        """
        pallet PLT item register / bin_location BIN item add
        picklist PKL document create / stocktake STK case start
        putaway PUT case create / inbound_receipt IRC document record
        replenishment RPL request create / lot LOT item register
        pick_wave WAV case plan / shelf SHF item add
        """,
    ),
    _domain(
        "shipping", "customer", "courier COU", "package PKG",
        "tracking.shipping.example.com", "hub_east hub_west airport_depot",
        "signature_required fragile perishable oversize",
        """
        shipment SHP document create / parcel PCL item register
        consignment CNS document create / waybill WBL document issue
        pickup PKP booking schedule / customs_declaration CDC document draft
        delivery_attempt DAT case log / manifest MNF document generate
        delivery DLV booking schedule / redirection RDR request submit
        """,
    ),
    _domain(
        "procurement", "business unit", "buyer BUY", "material MAT",
        "suppliers.procurement.example.com", "head_office plant_one plant_two",
        "strategic single_source urgent capex",
        """
        requisition REQ request submit / tender TND case open
        bid BID document submit / contract CTR document draft
        agreement AGR document draft / purchase_commitment PCM document record
        scorecard SCC document create / quotation QTN document record
        vendor_dispute VDS case open / supplier_accreditation SAC document record
        """,
    ),
    _domain(
        "billing", "customer", "billing clerk BIL", "service SRV",
        "gateway.billing.example.com", "north_region south_region online",
        "disputed autopay overdue tax_exempt",
        """
        invoice INV document issue / credit_memo CRM document issue
        instalment INS document schedule / dunning_letter DUN document generate
        subscription SUB item create / meter_reading MTR document record
        direct_debit DDB item register / late_fee FEE item add
        statement STM document generate / chargeback CHB case open
        """,
    ),
    _domain(
        "accounting", "company", "accountant ACC", "ledger account GL",
        "filings.accounting.example.com", "head_office branch_north branch_south",
        "audit_flag year_end intercompany provisional",
        """
        journal JRN document record / expense_report EXR document submit
        budget BGT document plan / accrual ACR document record
        reconciliation REC case start / vat_filing VAT document draft
        cost_center CCT item create / ledger LDG document open
        exchange_rate FXR item add / fiscal_period FPR item open
        """,
    ),
    _domain(
        "payroll", "employee", "payroll officer PAY", "pay component PCO",
        "pensions.payroll.example.com", "head_office factory remote",
        "backdated manual_check leaver new_starter",
        """
        payslip PSL document issue / salary_cycle CYC case open
        bonus BON document record / salary_advance ADV request submit
        pension_contribution PEN document record / garnishment GRN document register
        deduction DED document add / allowance ALW item add
        commission COM document record / payroll_correction COR document create
        """,
    ),
    _domain(
        "hr", "employee", "advisor HRA", "skill SKL",
        "benefits.hr.example.com", "head_office factory remote",
        "confidential union_rep occupational_health manager_review",
        """
        absence ABS request record / shift SFT booking schedule
        onboarding ONB case start / appraisal APR case schedule
        certification CRT document record / grievance GRV case open
        relocation RLC request submit / offboarding OFB case start
        timesheet TSH document submit / parental_leave PLV request submit
        """,
    ),
    _domain(
        "recruiting", "hiring team", "recruiter REC", "requirement RQM",
        "jobs.recruiting.example.com", "head_office factory remote",
        "graduate senior relocation_offered visa_sponsored",
        """
        vacancy VCY case open / application APL document submit
        interview ITV booking schedule / job_offer OFR document draft
        screening SCR case start / assessment ASM booking schedule
        talent_pool TPL item create / shortlist SHL document create
        job_fair FAR booking book / brief BRF document draft
        """,
    ),
    _domain(
        "helpdesk", "customer", "agent AGT", "symptom SYM",
        "status.helpdesk.example.com", "first_line second_line field_service",
        "vip security outage_related regression",
        """
        ticket TKT case open / incident INC case log
        outage OUT case log / escalation ESC case open
        knowledge_article KBA document draft / callback CLB booking schedule
        satisfaction_survey SSV document create / sla_breach SLA case log
        maintenance_window MWN booking schedule / workaround WRK document draft
        """,
    ),
    _domain(
        "it_assets", "employee", "technician TEC", "component CMP",
        "vendors.itassets.example.com", "head_office data_centre remote",
        "encrypted loaner warranty end_of_life",
        """
        laptop LPT item register / software_licence LIC item issue
        headset HST item issue / repair RPR request submit
        docking_station DCK item issue / server SRV item register
        backup_job BKJ case schedule / printer PRN item register
        workstation WKS item register / keyboard KBD item issue
        """,
    ),
    _domain(
        "facilities", "occupant", "caretaker CTK", "spare part SPP",
        "contractors.facilities.example.com", "tower_a tower_b car_park",
        "health_and_safety out_of_hours contractor accessible",
        """
        maintenance_visit MVS booking schedule / meeting_space MSP booking reserve
        parking_permit PMT document issue / cleaning_rota ROT document draft
        key_handover KHO document record / fire_drill DRL booking schedule
        inspection ISP booking schedule / hot_desk DSK booking reserve
        lift_fault FLT case log / waste_collection WCL booking schedule
        """,
    ),
    _domain(
        "hotel", "guest", "receptionist RCP", "amenity AMN",
        "channels.hotel.example.com", "main_building garden_wing spa",
        "vip accessible_room late_arrival loyalty_member",
        """
        reservation RSV booking book / late_checkout LCO request submit
        housekeeping_task HKT case create / spa_treatment SPA booking book
        shuttle SHU booking book / folio FOL document open
        lost_property LPR case log / group_block GBK booking reserve
        guest_complaint GCP case log / baby_cot COT booking reserve
        """,
    ),
    _domain(
        "restaurant", "diner", "host HST", "dish DSH",
        "suppliers.restaurant.example.com", "dining_room terrace private_room",
        "allergy_alert birthday vip large_party",
        """
        dinner_booking DBK booking book / takeaway TKW document place
        catering CTG booking book / menu MNU document draft
        allergen_sheet ALS document create / kitchen_docket KDK document create
        tasting TST booking book / wine_pairing WPR item create
        gift_voucher GVC document issue / waitlist WTL item add
        """,
    ),
    _domain(
        "travel", "traveller", "travel agent TRA", "segment SEG",
        "fares.travel.example.com", "head_office airport_desk online",
        "business_class visa_needed group_travel refundable",
        """
        itinerary ITN document draft / flight FLT booking book
        visa VSA request submit / car_hire CAR booking book
        rail_pass RPS item issue / excursion EXN booking book
        seat_selection SEL booking reserve / group_tour TOR booking book
        policy_exception PEX request submit / layover LAY booking plan
        """,
    ),
    _domain(
        "school", "student", "teacher TCH", "subject SBJ",
        "exams.school.example.com", "main_campus sports_hall annex",
        "special_needs scholarship boarder exam_access",
        """
        enrolment ENR document submit / timetable TTB document draft
        essay ESY document submit / exam EXM booking schedule
        transcript TRN document issue / parent_meeting PMT booking book
        field_trip FTP booking plan / detention DET case record
        course CRS item create / locker LCK item reserve
        """,
    ),
    _domain(
        "library", "reader", "librarian LIB", "title TTL",
        "union.library.example.com", "central branch_east branch_west",
        "rare large_print reference_only local_history",
        """
        loan LON document issue / hold HLD request place
        renewal RNW request submit / overdue_fine OFN document issue
        study_room STR booking book / acquisition ACQ request submit
        donation DON document record / digitisation DGT request submit
        archive_box ABX item register / author_talk ATK booking schedule
        """,
    ),
    _domain(
        "gym", "member", "trainer TRN", "exercise EXR",
        "wearables.gym.example.com", "city_gym pool_centre park_studio",
        "beginner injury_note student_rate peak_hours",
        """
        membership MBR document open / spin_class SPN booking book
        personal_training PTR booking book / workout WKO document create
        membership_freeze FRZ request submit / induction IND booking schedule
        squash_court SQC booking book / nutrition_consult NTC booking book
        challenge CHL case start / swim_lane SWL booking book
        """,
    ),
    _domain(
        "insurance", "policyholder", "adjuster ADJ", "peril PRL",
        "brokers.insurance.example.com", "motor_desk home_desk commercial_desk",
        "high_value fraud_check vulnerable_customer broker_placed",
        """
        policy POL document issue / claim CLM case open
        premium PRM document issue / endorsement END document issue
        loss_adjustment LAD case open / lapse LPS case record
        rider RDR document add / subrogation SBR case open
        no_claims_certificate NCC document issue / excess_waiver EXW document issue
        """,
    ),
    _domain(
        "banking", "client", "banker BNK", "payee PYE",
        "payments.banking.example.com", "city_branch online_branch business_centre",
        "joint_holder vulnerable_client high_value dormant",
        """
        mortgage MTG document draft / overdraft OVD request submit
        savings_goal SVG item create / remittance RMT document create
        cheque CHQ document issue / kyc_review KYC case open
        credit_limit CLM request submit / payee PYE item add
        cash_withdrawal CWD request book / savings_pot POT item create
        """,
    ),
    _domain(
        "rentals", "tenant", "letting agent LET", "fixture FXT",
        "portals.rentals.example.com", "city_office north_office student_lets",
        "furnished pets_allowed hmo short_let",
        """
        lease LSE document draft / viewing VWG booking book
        rent_payment RPM document record / guarantor GRT item add
        listing LST document create / tenancy_inventory TIV document draft
        tenant_reference TRF document record / rent_increase RIN request propose
        valuation VAL booking schedule / tenancy_termination TTM request submit
        """,
    ),
    _domain(
        "legal", "client", "paralegal PAR", "clause CLS",
        "courts.legal.example.com", "london_office leeds_office remote",
        "privileged urgent_deadline pro_bono conflict_flag",
        """
        matter MTR case open / engagement ENG document draft
        pleading PLD document draft / hearing HRG booking schedule
        subpoena SBP document issue / deposition DPS booking schedule
        conflict_clearance CCL case start / retainer RTN document draft
        preservation_notice PNT document issue / trademark TMK request register
        """,
    ),
    _domain(
        "marketing", "brand team", "marketer MKT", "channel CHN",
        "ads.marketing.example.com", "brand_studio regional_team agency",
        "seasonal evergreen regulated partner_funded",
        """
        campaign CMP case plan / newsletter NWS document draft
        landing_page LPG document create / advert ADV document create
        promotion PRO item create / audience_segment AUD item create
        press_release PRS document draft / webinar WBN booking schedule
        sponsorship SPS document draft / brand_asset BAS item upload
        """,
    ),
    _domain(
        "events", "organiser", "coordinator COO", "admission ADM",
        "venues.events.example.com", "main_hall east_hall outdoor_stage",
        "sponsor speaker accessibility press",
        """
        conference CNF case plan / venue VEN booking reserve
        registration RGS document create / speaker_invitation SPI document draft
        exhibitor_stand EXS booking reserve / badge BDG item issue
        agenda AGD document draft / av_equipment AVE booking reserve
        workshop WSP booking schedule / feedback_form FBF document create
        """,
    ),
    _domain(
        "fleet", "driver", "fleet manager FLM", "spare part SPP",
        "telematics.fleet.example.com", "north_depot south_depot city_base",
        "electric hire_car pool_car restricted",
        """
        vehicle VEH item register / route RTE document plan
        fuel_purchase FUE document record / tyre_fitting TYR booking book
        collision COL case log / telematics_alarm TAL case log
        toll TOL document record / vehicle_swap VSW request submit
        traffic_penalty TPN case log / ev_charger EVC booking reserve
        """,
    ),
    _domain(
        "manufacturing", "plant", "operator OPR", "part PRT",
        "suppliers.plant.example.com", "line_one line_two paint_shop",
        "safety_critical customer_witness first_article rush",
        """
        production_batch PBT document create / assembly ASY document draft
        quality_deviation QDV case log / machine_downtime MDT case log
        preventive_maintenance PMN booking schedule / mould_changeover MCO booking schedule
        nonconformance NCR case open / kanban_signal KBN item create
        calibration CAL booking schedule / engineering_drawing EDW document upload
        """,
    ),
)  # fmt: skip


def _last_words_unique() -> None:
    """Two records whose names end in one word would make their tools neighbours (TG303)."""
    seen: dict[str, str] = {}
    for domain in DOMAINS:
        for record in domain.records:
            last = record.name.rsplit("_", 1)[-1]
            if last in seen:
                raise ValueError(f"{record.name} and {seen[last]} end in one word")
            seen[last] = record.name


_last_words_unique()
