"""Messy text vocabularies for the demo warehouse.

Everything here is plain data. Weighted lists are ``[(value, weight), ...]``; the
first entry is the "canonical" spelling and usually the most frequent one.
The variants are deliberate: later features (value matching, onboarding) are
tested on brand, category, city and country strings that disagree in suffixes,
casing, accents and scripts, as they do in real warehouses.

No string may contain a tab, newline or backslash (they are written to COPY text
format without escaping); :func:`sqlgenie.demo.encode.check_copy_safe` asserts it.
"""

from __future__ import annotations

# --- regions -----------------------------------------------------------------

#: (region_id, region_name, region_code)
REGIONS: list[tuple[int, str, str]] = [
    (1, "West", "W"),
    (2, "East", "E"),
    (3, "North", "N"),
    (4, "South", "S"),
    (5, "Central", "C"),
    (6, "International", "INTL"),
]

# --- cities --------------------------------------------------------------------

#: (canonical city, state or None, country, region_id, population weight)
CITIES: list[tuple[str, str | None, str, int, float]] = [
    # West
    ("San Francisco", "CA", "United States", 1, 8),
    ("Palo Alto", "CA", "United States", 1, 3),
    ("Los Angeles", "CA", "United States", 1, 10),
    ("San Jose", "CA", "United States", 1, 4),
    ("San Diego", "CA", "United States", 1, 4),
    ("Seattle", "WA", "United States", 1, 6),
    ("Portland", "OR", "United States", 1, 3),
    # East
    ("New York", "NY", "United States", 2, 14),
    ("Boston", "MA", "United States", 2, 6),
    ("Philadelphia", "PA", "United States", 2, 5),
    ("Washington", "DC", "United States", 2, 5),
    ("Baltimore", "MD", "United States", 2, 2),
    ("Newark", "NJ", "United States", 2, 2),
    # North
    ("Chicago", "IL", "United States", 3, 9),
    ("Minneapolis", "MN", "United States", 3, 4),
    ("Detroit", "MI", "United States", 3, 3),
    ("Milwaukee", "WI", "United States", 3, 2),
    ("Cleveland", "OH", "United States", 3, 2),
    # South
    ("Houston", "TX", "United States", 4, 7),
    ("Dallas", "TX", "United States", 4, 6),
    ("Austin", "TX", "United States", 4, 4),
    ("Atlanta", "GA", "United States", 4, 5),
    ("Miami", "FL", "United States", 4, 5),
    ("Nashville", "TN", "United States", 4, 2),
    # Central
    ("Denver", "CO", "United States", 5, 5),
    ("Kansas City", "MO", "United States", 5, 3),
    ("St. Louis", "MO", "United States", 5, 3),
    ("Omaha", "NE", "United States", 5, 2),
    ("Oklahoma City", "OK", "United States", 5, 2),
    # International
    ("Tokyo", None, "Japan", 6, 8),
    ("Osaka", None, "Japan", 6, 3),
    ("São Paulo", None, "Brazil", 6, 5),
    ("München", None, "Germany", 6, 4),
    ("Berlin", None, "Germany", 6, 4),
    ("London", None, "United Kingdom", 6, 6),
    ("Paris", None, "France", 6, 4),
    ("Toronto", None, "Canada", 6, 4),
    ("Mexico City", None, "Mexico", 6, 3),
    ("Seoul", None, "South Korea", 6, 3),
    ("Mumbai", None, "India", 6, 3),
    ("Sydney", None, "Australia", 6, 3),
    ("Kraków", None, "Poland", 6, 2),
    ("Zürich", None, "Switzerland", 6, 2),
    ("Stockholm", None, "Sweden", 6, 2),
]

#: How customers (free-text address forms) spell some cities. Stores always use
#: the canonical spelling.
CITY_SPELLINGS: dict[str, list[tuple[str, float]]] = {
    "New York": [("New York", 8), ("New York City", 1), ("NYC", 1)],
    "München": [("München", 7), ("Munich", 3)],
    "São Paulo": [("São Paulo", 8), ("Sao Paulo", 2)],
    "Zürich": [("Zürich", 7), ("Zurich", 3)],
    "Kraków": [("Kraków", 7), ("Krakow", 3)],
    "St. Louis": [("St. Louis", 8), ("Saint Louis", 2)],
    "San Francisco": [("San Francisco", 19), ("San Fransisco", 1)],
}

COUNTRY_SPELLINGS: dict[str, list[tuple[str, float]]] = {
    "United States": [("United States", 8), ("USA", 2), ("US", 1)],
    "Germany": [("Germany", 9), ("Deutschland", 1)],
    "United Kingdom": [("United Kingdom", 8), ("UK", 2)],
    "South Korea": [("South Korea", 9), ("Korea, Republic of", 1)],
}

#: Words for store names ("<city> <descriptor>").
STORE_DESCRIPTORS = [
    "Downtown", "Mall", "Outlet", "Plaza", "Center", "Station", "Riverside", "Airport",
    "West End", "Market St", "Uptown", "Harbor", "Old Town", "Galleria", "North",
]

STORE_TYPES_PHYSICAL = [("street", 5), ("mall", 4), ("outlet", 2), ("flagship", 1)]

#: One fulfillment center per region serves online orders: (region_id, city).
FULFILLMENT_CENTERS = [
    (1, "Reno", "NV", "United States"),
    (2, "Allentown", "PA", "United States"),
    (3, "Joliet", "IL", "United States"),
    (4, "Memphis", "TN", "United States"),
    (5, "Kansas City", "MO", "United States"),
    (6, "Rotterdam", None, "Netherlands"),
]

# --- people ----------------------------------------------------------------------

#: culture -> (first names, last names). Non-ASCII on purpose.
NAMES: dict[str, tuple[list[str], list[str]]] = {
    "english": (
        ["James", "Mary", "Michael", "Jennifer", "David", "Linda", "Robert", "Patricia", "John",
         "Elizabeth", "William", "Barbara", "Chris", "Ashley", "Tyler", "Madison", "Zoë", "Siobhan"],
        ["Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "O'Brien", "McDonald",
         "Anderson", "Taylor", "Thomas", "Moore", "Jackson", "Van der Berg", "St. James"],
    ),
    "hispanic": (
        ["José", "María", "Juan", "Lucía", "Carlos", "Sofía", "Andrés", "Camila", "Jesús", "Martín"],
        ["García", "Martínez", "Rodríguez", "López", "Hernández", "González", "Pérez", "Sánchez",
         "Gómez", "Díaz", "de la Cruz"],
    ),
    "brazilian": (
        ["João", "Ana", "Pedro", "Beatriz", "Luís", "Gabriela", "Thiago", "Fernanda", "Conceição"],
        ["Silva", "Santos", "Oliveira", "Souza", "Araújo", "Gonçalves", "Ribeiro", "Assunção"],
    ),
    "german": (
        ["Jürgen", "Anna", "Lukas", "Sophie", "Maximilian", "Lena", "Jörg", "Katharina", "Günther", "Uwe"],
        ["Müller", "Schmidt", "Schneider", "Fischer", "Weiß", "Köhler", "Schäfer", "Groß", "Becker",
         "Hoffmann", "von Stein"],
    ),
    "french": (
        ["François", "Hélène", "Amélie", "Jérôme", "Chloé", "Élodie", "Jean-Luc", "Marie-Claire"],
        ["Dubois", "Lefèvre", "Moreau", "Laurent", "Girard", "Bérénger", "Rousseau", "D'Angelo"],
    ),
    "nordic": (
        ["Søren", "Åsa", "Björn", "Ingrid", "Lars", "Sigrún", "Mikael"],
        ["Andersson", "Johansson", "Nielsen", "Jørgensen", "Lindqvist", "Sæther"],
    ),
    "polish": (
        ["Łukasz", "Małgorzata", "Krzysztof", "Zofia", "Paweł", "Agnieszka"],
        ["Kowalski", "Nowak", "Wiśniewski", "Wójcik", "Lewandowska", "Dąbrowski"],
    ),
    "japanese": (
        ["Yuki", "Haruto", "Sakura", "Yūto", "Aoi", "Kenji", "Hiroshi", "Yuna"],
        ["Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Itō", "Yamamoto", "Nakamura"],
    ),
    "japanese_kanji": (
        ["陽翔", "結衣", "健二", "美咲", "大輔"],
        ["佐藤", "鈴木", "高橋", "田中", "渡辺"],
    ),
    "chinese": (
        ["Wei", "Li Na", "Jun", "Mei", "Hao", "Xiu Ying", "伟"],
        ["Wang", "Li", "Zhang", "Liu", "Chen", "Yang", "Huang", "Zhao", "王"],
    ),
    "indian": (
        ["Aarav", "Priya", "Rahul", "Ananya", "Vikram", "Sneha", "Arjun", "Deepika"],
        ["Sharma", "Patel", "Gupta", "Singh", "Reddy", "Iyer", "Nair"],
    ),
    "korean": (
        ["Min-jun", "Seo-yeon", "Ji-ho", "Ha-eun", "민준"],
        ["Kim", "Lee", "Park", "Choi", "Jung", "김"],
    ),
    "arabic": (
        ["Mohammed", "Fatima", "Omar", "Aisha", "Youssef", "Layla"],
        ["Al-Sayed", "Haddad", "Khalil", "El-Amin", "Nasser"],
    ),
    "vietnamese": (
        ["Minh", "Lan", "Thảo", "Dũng", "Quỳnh"],
        ["Nguyễn", "Trần", "Lê", "Phạm", "Hoàng"],
    ),
    "turkish": (
        ["Emre", "Ayşe", "Mehmet", "Zeynep", "Çağla"],
        ["Yılmaz", "Öztürk", "Şahin", "Çelik", "Doğan"],
    ),
}

#: country -> culture weights (names are only loosely tied to where people live).
CULTURES_BY_COUNTRY: dict[str, list[tuple[str, float]]] = {
    "United States": [
        ("english", 55), ("hispanic", 15), ("chinese", 5), ("indian", 6), ("korean", 3),
        ("vietnamese", 3), ("arabic", 3), ("german", 2), ("french", 2), ("japanese", 2),
        ("polish", 2), ("nordic", 1), ("turkish", 1),
    ],
    "Japan": [("japanese", 62), ("japanese_kanji", 28), ("english", 4), ("chinese", 3), ("korean", 3)],
    "Brazil": [("brazilian", 80), ("hispanic", 6), ("japanese", 6), ("german", 4), ("arabic", 4)],
    "Germany": [("german", 70), ("turkish", 12), ("polish", 8), ("english", 4), ("arabic", 6)],
    "United Kingdom": [("english", 75), ("indian", 10), ("polish", 6), ("french", 4), ("arabic", 5)],
    "France": [("french", 80), ("arabic", 10), ("english", 5), ("vietnamese", 5)],
    "Canada": [("english", 55), ("french", 25), ("chinese", 10), ("indian", 10)],
    "Mexico": [("hispanic", 95), ("english", 5)],
    "South Korea": [("korean", 95), ("english", 5)],
    "India": [("indian", 95), ("english", 5)],
    "Australia": [("english", 75), ("chinese", 10), ("vietnamese", 5), ("indian", 10)],
    "Poland": [("polish", 95), ("german", 5)],
    "Switzerland": [("german", 60), ("french", 30), ("english", 10)],
    "Sweden": [("nordic", 85), ("arabic", 10), ("english", 5)],
}

SEGMENTS = [("Consumer", 75), ("Small Business", 15), ("Corporate", 10)]

EMAIL_DOMAINS: dict[str, list[tuple[str, float]]] = {
    "default": [("gmail.com", 35), ("yahoo.com", 10), ("outlook.com", 10), ("hotmail.com", 5),
                ("icloud.com", 8), ("proton.me", 2)],
    "Japan": [("gmail.com", 30), ("yahoo.co.jp", 30), ("docomo.ne.jp", 15), ("icloud.com", 10)],
    "Germany": [("gmail.com", 30), ("web.de", 25), ("gmx.de", 25), ("t-online.de", 10)],
    "Brazil": [("gmail.com", 50), ("uol.com.br", 20), ("hotmail.com", 20)],
    "United Kingdom": [("gmail.com", 40), ("btinternet.com", 15), ("outlook.com", 20)],
    "France": [("gmail.com", 40), ("orange.fr", 25), ("free.fr", 15)],
}

COMPANY_DOMAINS = [
    "northwind-traders.com", "contoso.com", "globex.com", "initech.com", "umbrella-corp.com",
    "hooli.com", "vandelay.com", "wayne-enterprises.com", "stark-industries.com", "tyrell.co",
    "soylent.io", "cyberdyne.net", "wonka-industries.com", "dundermifflin.com",
]

# --- brands ------------------------------------------------------------------------

#: brand key -> raw spellings as they appear in the products.brand column.
#: ``None`` means an unbranded product (NULL brand).
BRANDS: dict[str, list[tuple[str | None, float]]] = {
    "rockpot": [("Rockpot", 5), ("Rockpot LLC", 3), ("Rockpot ロックポット", 2), ("ROCKPOT", 1), ("RockPot Audio", 1)],
    "acme": [("Acme", 4), ("ACME Corp.", 3), ("Acme Corp", 2), ("acme corporation", 1), ("ACME", 1)],
    "mueller": [("Müller GmbH", 3), ("Müller", 3), ("Muller", 2), ("Mueller", 1)],
    "soundwave": [("Soundwave Inc", 3), ("SoundWave", 3), ("Soundwave Inc.", 1), ("SOUNDWAVE", 1)],
    "sakura": [("Sakura Denki", 3), ("さくら電機", 1), ("Sakura Electric Co.", 1)],
    "lumiere": [("Café Lumière", 3), ("Cafe Lumiere", 2), ("CAFÉ LUMIÈRE", 1)],
    "zhenfeng": [("Zhenfeng", 3), ("振峰 Zhenfeng", 1), ("ZhenFeng Tech", 1)],
    "peakpine": [("Peak & Pine", 3), ("Peak and Pine", 2), ("Peak&Pine Outfitters", 1)],
    "nordhaus": [("Nordhaus", 3), ("Nordhaus AB", 1), ("NORDHAUS", 1)],
    "voltix": [("Voltix", 4), ("Voltix Ltd.", 2), ("VOLTIX", 1)],
    "threadline": [("Threadline", 3), ("ThreadLine Apparel", 1), ("Threadline Co", 1)],
    "stride": [("Stride", 3), ("Stride Athletics", 2), ("STRIDE", 1)],
    "pureglow": [("PureGlow", 3), ("Pure Glow", 2), ("pureglow", 1)],
    "brightside": [("Brightside", 3), ("BrightSide Home", 1)],
    "kelvin": [("Kelvin & Co", 2), ("Kelvin and Co.", 1), ("KELVIN", 1)],
    "unbranded": [(None, 1)],
}

COLORS = [("Black", 6), ("White", 4), ("Silver", 2), ("Blue", 2), ("Red", 1), ("Space Gray", 1),
          ("schwarz", 1), ("Weiß", 1), ("Midnight", 1)]

# --- product families ----------------------------------------------------------------
#
# A family is one real-world category. Its ``labels`` are the raw category strings
# (near-duplicates, some shared between families, e.g. "Audio"). Templates use
# {n3} (3-4 digit model number), {n2} (2 digits), {d} (1 digit), {color}, {size}
# (the SKU's size), {letter} (A-Z). ``sizes`` lists the size options of one
# product line: each line becomes one product row per chosen size (the SKU level);
# ``template_sizes`` overrides them per template (None: the product has no size).
# ``size_price`` multiplies the price per size. ``price`` is the list price range
# in dollars. ``qty_p`` is the geometric parameter of the quantity per order line
# (1.0 = always 1; smaller = larger quantities).

FAMILIES: list[dict] = [
    {
        "key": "headphones", "code": "HP", "weight": 12,
        "labels": [("Headphones", 6), ("Headphone", 2), ("headphones & earbuds", 2), ("Audio", 1)],
        "brands": [("rockpot", 5), ("soundwave", 4), ("sakura", 2), ("acme", 2), ("zhenfeng", 2)],
        "templates": [
            "{n3} Headphone", "Headphone Pro {d}", "Wireless Earbuds X{d} ({color})", "NC{n3} Over-Ear",
            "Sport Buds {d} Lite", "Studio Monitor HP-{n2}", "Kopfhörer KH-{n3}", "BassBoost {n2}",
            "Earbuds Mini ({color})",
        ],
        "sizes": None, "price": (19, 399), "qty_p": 0.92,
    },
    {
        "key": "home_audio", "code": "HA", "weight": 6,
        "labels": [("Home Audio", 5), ("Audio", 2), ("Speakers", 2), ("speaker", 1)],
        "brands": [("soundwave", 4), ("rockpot", 3), ("nordhaus", 2), ("sakura", 1)],
        "templates": [
            "Bluetooth Speaker BT-{n3}", "Soundbar {n3} 2.1", "Bookshelf Speakers S{n2} (Pair)",
            "Party Box {d}00", "Smart Speaker Mini Gen {d}", "Subwoofer SW-{n2}",
        ],
        "sizes": None, "price": (29, 899), "qty_p": 0.93,
    },
    {
        "key": "kitchen", "code": "KA", "weight": 9,
        "labels": [("Kitchen Appliances", 6), ("Kitchen appliance", 2), ("Kitchen & Dining", 1), ("KITCHEN APPLIANCES", 1)],
        "brands": [("mueller", 4), ("acme", 3), ("nordhaus", 2), ("sakura", 2), ("lumiere", 1)],
        "templates": [
            "Kaffeemaschine KM-{n3}", "Espresso Maker EM{n3}", "Electric Kettle 1.7L ({color})",
            "Toaster 2-Slice T{n3}", "Blender BL-{n3} Pro", "Wasserkocher WK {n3}", "Rice Cooker RC-{n2}",
            "Air Fryer {d}.5 qt", "Stand Mixer SM{n3}",
        ],
        "sizes": None, "price": (24, 699), "qty_p": 0.95,
    },
    {
        "key": "cables", "code": "CC", "weight": 10,
        "labels": [("Cables & Chargers", 5), ("Cables", 2), ("Accessories", 2), ("Phone Accessories", 1)],
        "brands": [("acme", 4), ("voltix", 4), ("zhenfeng", 3), ("unbranded", 1)],
        "templates": [
            "USB-C Cable {size}", "Lightning to USB Cable {size}", "HDMI 2.1 Cable {size}",
            "USB-C to USB-C {size} Braided", "Cat6 Ethernet Cable {size}",
            "{n2}W GaN Charger", "Power Bank {d}0000mAh", "Wireless Charger Pad Q{d}", "Car Charger Dual USB",
        ],
        "sizes": [("1m", 3), ("2m", 3), ("3m", 1), ("0.5m", 1)],
        "size_price": {"0.5m": 0.8, "1m": 1.0, "2m": 1.3, "3m": 1.6},
        "template_sizes": {"{n2}W GaN Charger": None, "Power Bank {d}0000mAh": None,
                           "Wireless Charger Pad Q{d}": None, "Car Charger Dual USB": None},
        "price": (6, 49), "qty_p": 0.7,
    },
    {
        "key": "peripherals", "code": "PC", "weight": 7,
        "labels": [("Computer Accessories", 4), ("Peripherals", 3), ("Keyboards & Mice", 2), ("Accessories", 1)],
        "brands": [("kelvin", 3), ("acme", 3), ("zhenfeng", 2), ("voltix", 2)],
        "templates": [
            "MX-{n3} Wireless Mouse", "Mechanical Keyboard K{n3} (DE Layout)", "Mechanical Keyboard K{n3} (US)",
            "Webcam 1080p W{n2}", "USB Hub 7-Port H{d}", "Monitor Arm MA-{n2}", "Laptop Stand {letter}{d}",
        ],
        "sizes": None, "price": (15, 249), "qty_p": 0.85,
    },
    {
        "key": "apparel", "code": "AP", "weight": 12,
        "labels": [("Apparel", 5), ("Clothing", 3), ("T-Shirts", 1), ("apparel & accessories", 1)],
        "brands": [("threadline", 4), ("peakpine", 3), ("acme", 1), ("unbranded", 1)],
        "templates": [
            "Classic Crew Tee ({color})", "Hoodie Essential {color}", "Chino Pants Slim", "Merino Socks 3-Pack",
            "Rain Jacket {letter}{d}", "Polo Shirt Piqué ({color})", "Fleece Vest FV-{n2}",
            "Baseball Cap ({color})", "Beanie Wool", "Tote Bag Canvas",
        ],
        "sizes": [("S", 3), ("M", 4), ("L", 4), ("XL", 2), ("XXL", 1)],
        "size_price": {},
        "template_sizes": {t: [("One Size", 1)] for t in ("Baseball Cap ({color})", "Beanie Wool", "Tote Bag Canvas")},
        "price": (9, 129), "qty_p": 0.75,
    },
    {
        "key": "footwear", "code": "FW", "weight": 5,
        "labels": [("Footwear", 4), ("Shoes", 3), ("Sneakers", 1)],
        "brands": [("stride", 5), ("peakpine", 2)],
        "templates": [
            "Runner {n3} ({color})", "Trail Shoe TR-{n2}", "Court Classic {color}", "Slip-On Canvas",
            "Hiking Boot HB{d} GTX",
        ],
        "sizes": [("EU 38", 2), ("EU 40", 3), ("EU 42", 4), ("EU 44", 3), ("EU 46", 1), ("US 9", 2), ("US 10", 2)],
        "size_price": {},
        "price": (39, 219), "qty_p": 0.97,
    },
    {
        "key": "coffee", "code": "CT", "weight": 9,
        "labels": [("Coffee & Tea", 4), ("Coffee", 2), ("Beverages", 2), ("Grocery", 1)],
        "brands": [("lumiere", 5), ("acme", 1), ("unbranded", 1)],
        "templates": [
            "Espresso Beans Dark Roast {size}", "Café Crema Whole Bean {size}", "Green Tea Sencha {size}",
            "Cold Brew Concentrate {size}", "Decaf Ground Coffee {size}", "Chai Latte Mix {size}",
        ],
        "sizes": [("250 g", 2), ("500 g", 3), ("1 kg", 2)],
        "size_price": {"250 g": 0.6, "500 g": 1.0, "1 kg": 1.8, "500 ml": 0.9, "1 L": 1.6},
        "template_sizes": {"Cold Brew Concentrate {size}": [("500 ml", 2), ("1 L", 1)]},
        "price": (5, 39), "qty_p": 0.55,
    },
    {
        "key": "personal_care", "code": "PE", "weight": 7,
        "labels": [("Personal Care", 4), ("Health & Beauty", 3), ("Beauty", 1)],
        "brands": [("pureglow", 5), ("mueller", 1), ("brightside", 1)],
        "templates": [
            "Shampoo Repair {size}", "Body Lotion Aloe {size}", "Hand Soap Lavender {size}",
            "Sunscreen SPF50 {size}", "Sunscreen SPF30 {size}", "Electric Toothbrush ET-{n3}", "Hair Dryer HD{n3} Ionic",
        ],
        "sizes": [("250 ml", 3), ("500 ml", 3), ("1 L", 1), ("100 ml", 1)],
        "template_sizes": {
            "Sunscreen SPF50 {size}": [("100 ml", 2), ("250 ml", 1)],
            "Sunscreen SPF30 {size}": [("100 ml", 2), ("250 ml", 1)],
            "Electric Toothbrush ET-{n3}": None,
            "Hair Dryer HD{n3} Ionic": None,
        },
        "size_price": {"100 ml": 0.6, "250 ml": 1.0, "500 ml": 1.6, "1 L": 2.4},
        "price": (4, 89), "qty_p": 0.6,
    },
    {
        "key": "cleaning", "code": "HC", "weight": 6,
        "labels": [("Household", 3), ("Home Cleaning", 3), ("Cleaning Supplies", 2)],
        "brands": [("brightside", 4), ("mueller", 2), ("acme", 2), ("unbranded", 1)],
        "templates": [
            "All-Purpose Cleaner {size}", "Spülmittel Classic {size}", "Glass Cleaner Streak-Free {size}",
            "Laundry Detergent Pods {n2}ct", "Microfiber Cloths {d}-Pack", "Dish Soap Lemon {size}",
        ],
        "sizes": [("500 ml", 3), ("750 ml", 2), ("1 L", 2), ("2 L", 1)],
        "template_sizes": {"Laundry Detergent Pods {n2}ct": None, "Microfiber Cloths {d}-Pack": None},
        "size_price": {"500 ml": 0.8, "750 ml": 1.0, "1 L": 1.2, "2 L": 2.0},
        "price": (3, 24), "qty_p": 0.5,
    },
]

#: Products that exist in every demo (any seed, any scale), in the spellings docs
#: and examples may rely on: (family key, brand, category, product name, size).
FEATURED_PRODUCTS: list[tuple[str, str | None, str, str, str | None]] = [
    ("headphones", "Rockpot", "Headphones", "1300 Headphone", None),
    ("headphones", "Rockpot ロックポット", "Headphone", "Headphone Pro 2", None),
    ("headphones", "Rockpot LLC", "headphones & earbuds", "Wireless Earbuds X2 (Black)", None),
    ("cables", "ACME Corp.", "Cables & Chargers", "USB-C Cable 2m", "2m"),
    ("kitchen", "Müller GmbH", "Kitchen Appliances", "Kaffeemaschine KM-500", None),
    ("kitchen", "Acme", "Kitchen appliance", "Espresso Maker EM200", None),
    ("home_audio", "SoundWave", "Audio", "Bluetooth Speaker BT-300", None),
    ("apparel", "Threadline", "Apparel", "Classic Crew Tee (Black)", "M"),
]
