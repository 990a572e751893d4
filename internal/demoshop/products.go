package demoshop

import (
	"time"

	"catalogd/internal/wpfixture"
)

// products is the catalog, in post ID order. Every product names its slug
// as WordPress would store it (before the __trashed suffix of a trashed
// one), so tests can find it here.
func products() []wpfixture.Product {
	return []wpfixture.Product{
		// --- Jobs > Emergency Services > Police -------------------------
		{
			Title: "Police MDT", Slug: "police-mdt", RegularPrice: "20", Featured: true, SKU: "NW-MDT",
			Categories: []string{"police"}, Frameworks: []string{"esx", "qbcore", "qbox"}, Tags: []string{"bestseller", "roleplay"},
			Content: germanMDT, Excerpt: `<p>Das digitale Einsatzsystem für deine Polizei: Akten, Haftbefehle, Bußgelder&nbsp;&amp; Berichte.</p>`,
		},
		{
			Title: "Police Radar & Plate Reader", Slug: "police-radar-plate-reader", RegularPrice: "12.5",
			Categories: []string{"police", "vehicles"}, Frameworks: []string{"standalone"},
			Content: blocks(
				para(`Catch speeders with a front &amp; rear radar and an ANPR plate reader that flags stolen vehicles.`),
				`[caption id="attachment_42" align="aligncenter" width="800"]The radar panel in a patrol car[/caption]`,
				list("Lockable fast-limit alarm", "BOLO list shared with the MDT", "Works in any vehicle class"),
			),
			Excerpt: `<p>Front &amp; rear radar plus plate reader. No framework required.</p>`,
		},
		{
			Title: "Evidence Locker", Slug: "evidence-locker", RegularPrice: "7.12345",
			Categories: []string{"police"}, Frameworks: []string{"esx", "qbcore"},
			Content: std(`Numbered evidence bags, a chain-of-custody log and lockers per case.`,
				"Photos attached to every item", "Auto-expiry of old cases"),
			Excerpt: `<p>Evidence bags &amp; lockers with a chain-of-custody log.</p>`,
		},
		{
			Title: "K9 Unit", Slug: "k9-unit", RegularPrice: "3.995",
			Categories: []string{"police"}, Frameworks: []string{"qbcore", "qbox"},
			Content: std(`A trained police dog that follows, sniffs vehicles for contraband and takes down suspects.`,
				"Three breeds", "Commands through a radial menu"),
			Excerpt: `<p>A police dog with search &amp; attack commands.</p>`,
		},
		{
			Title: "Dispatch System", Slug: "dispatch-system", RegularPrice: "14", SalePrice: "10",
			SaleFrom: activeFrom, SaleTo: activeTo, SKU: "NW-DISPATCH",
			Categories: []string{"police", "ems"}, Frameworks: []string{"qbcore", "qbox"}, Tags: []string{"roleplay", "escrow-free"},
			Content: std(`Shared dispatch for police and EMS: calls, blips, units and priorities on one screen.`,
				"Panic button", "Call history per unit", "Sound alerts"),
			Excerpt: `<p>One dispatch for all emergency services — on sale.</p>`,
		},
		{
			Title: "Prison System", Slug: "prison-system", RegularPrice: "17", StockStatus: "onbackorder",
			Featured: true, Categories: []string{"police"}, Frameworks: []string{"esx"},
			Content: std(`Sentences, prison jobs to shorten them, and a canteen run by inmates.`,
				"Escape attempts with alarms", "Lifer mode"),
			Excerpt: `<p>Jail time that players actually enjoy.</p>`,
		},
		// --- EMS ------------------------------------------------------
		{
			Title: "EMS Job", Slug: "ems-job", RegularPrice: "15",
			Categories: []string{"ems"}, Frameworks: []string{"esx", "qbcore", "qbox"},
			Content: std(`Revive, treat wounds and bill patients. Injuries depend on the damage taken.`,
				"Stretchers and wheelchairs", "Hospital beds with check-in"),
			Excerpt: `<p>Medics with real injuries to treat.</p>`,
		},
		{
			Title: "Ambulance Pack", Slug: "ambulance-pack", RegularPrice: "18", SalePrice: "12",
			SaleFrom: endedFrom, SaleTo: endedTo,
			Categories: []string{"ems", "vehicles"},
			Content: std(`Six lore-friendly ambulances with working lights and livery sheets.`,
				"Optimised textures", "Extras for equipment"),
			Excerpt: `<p>Six ambulances. The summer 2025 sale is over.</p>`,
		},
		// --- Fire Department (nothing in stock) ---------------------------
		{
			Title: "Fire Department Job", Slug: "fire-department-job", RegularPrice: "22", StockStatus: "outofstock",
			Categories: []string{"fire-department"}, Frameworks: []string{"esx"},
			Content: std(`Hoses, ladders and spreading fires that the whole department has to fight together.`,
				"Fire spreads with the wind", "Rescue missions"),
			Excerpt: `<p>Fires that spread. Sold out for now.</p>`,
		},
		{
			Title: "Wildfire Events", Slug: "wildfire-events", RegularPrice: "9", StockStatus: "outofstock", Stock: intp(0),
			Categories: []string{"fire-department"}, Frameworks: []string{"standalone"},
			Content: std(`Random wildfires in Blaine County, announced to every firefighter on duty.`, "Configurable frequency"),
			Excerpt: `<p>Random wildfires.</p>`,
		},
		// --- Civilian Jobs ----------------------------------------------
		{
			Title: "Café Job", Slug: "cafe-job", RegularPrice: "9.5",
			Categories: []string{"civilian-jobs"}, Frameworks: []string{"qbcore"},
			Content: frenchCafe, Excerpt: frenchCafeShort,
		},
		{
			Title: "Trucker Job", Slug: "trucker-job", RegularPrice: "8", SalePrice: "5",
			SaleFrom: futureFrom, SaleTo: futureTo,
			Categories: []string{"civilian-jobs"}, Frameworks: []string{"esx"},
			Content: std(`Long-haul deliveries with trailers, fuel costs and a company ranking.`, "Company convoys", "Weight stations"),
			Excerpt: `<p>Hit the road. A sale is planned for January 2030.</p>`,
		},
		{
			Title: "Garbage Job", Slug: "garbage-job", RegularPrice: "0",
			Categories: []string{"civilian-jobs"}, Frameworks: []string{"standalone"},
			Content: std(`A free starter job: collect bins around the city and earn a salary per route.`, "Route editor"),
			Excerpt: `<p>Free! A starter job for new players.</p>`,
		},
		{
			Title: "Mining Job", Slug: "mining-job", RegularPrice: "11", StockStatus: "onbackorder",
			Categories: []string{"civilian-jobs"}, Frameworks: []string{"qbox"},
			Content: std(`Dig, wash and smelt ores; sell ingots to jewellers.`, "Cave interiors", "Explosives with permits"),
			Excerpt: `<p>Mining with a full crafting chain. On backorder.</p>`,
		},
		{
			Title: "Taxi Job", Slug: "taxi-job", RegularPrice: "14", SalePrice: "9.99",
			SaleFrom: laggedFrom, SaleTo: activeTo, StoredPrice: strp("14"),
			Categories: []string{"civilian-jobs"}, Frameworks: []string{"esx", "qbcore"},
			Content: std(`NPC and player fares with a meter, tips and a dispatcher app.`, "Taxi meter UI", "Fare zones"),
			Excerpt: `<p>A taxi job whose scheduled sale started on 10 November.</p>`,
		},
		{
			Title: "Hunting Job", Slug: "hunting-job", RegularPrice: "6",
			Gallery:    []string{"2026/10/hunting-job-1.jpg", "2026/10/hunting-job-2.jpg"},
			Categories: []string{"civilian-jobs"}, Frameworks: []string{"esx", "qbcore"},
			Content: std(`Track deer and boars, skin them and sell the meat. Licences required.`, "Hunting seasons"),
			Excerpt: `<p>Hunting with licences and seasons.</p>`,
		},
		// --- Vehicles ---------------------------------------------------
		{
			Title: "Vehicle Keys", Slug: "vehicle-keys", RegularPrice: "6.5", SalePrice: "4.5",
			SaleFrom: activeFrom, SaleTo: activeTo, Featured: true,
			Categories: []string{"vehicles"}, Frameworks: []string{"esx", "qbcore", "qbox", "standalone"},
			Content: std(`Keys for owned vehicles, lockpicking and hot-wiring, shared keys for passengers.`,
				"Key items in the inventory", "Lock sounds"),
			Excerpt: `<p>Keys, lockpicks &amp; hot-wiring. Every framework.</p>`,
		},
		{
			Title: "Garage System", Slug: "garage-system", RegularPrice: "16",
			Categories: []string{"garages"}, Frameworks: []string{"esx", "qbcore"},
			Content: std(`Public, job and house garages with impound.`, "Vehicle previews", "Transfer between garages"),
			Excerpt: `<p>Garages for every use.</p>`,
		},
		{
			Title: "Garage System", Slug: "garage-system-2", RegularPrice: "10",
			Categories: []string{"garages"}, Frameworks: []string{"qbox"},
			Content: std(`The lightweight garage script for Qbox: same title, different product.`, "Tiny footprint"),
			Excerpt: `<p>A second product with the same title.</p>`,
		},
		{
			Title: "Fuel System", Slug: "fuel-system", RegularPrice: "5", Visibility: "catalog",
			Categories: []string{"vehicles"}, Frameworks: []string{"standalone"},
			Content: std(`Fuel consumption per vehicle class, jerry cans and electric chargers.`, "Gas station ownership"),
			Excerpt: `<p>Fuel for every vehicle. Shown in the shop, not in search.</p>`,
		},
		{
			Title: "Vehicle Shop", Slug: "vehicle-shop", Type: "variable", SKU: "NW-VSHOP",
			Categories: []string{"vehicles"}, Tags: []string{"bestseller"},
			Variations: []wpfixture.Variation{
				{Framework: "esx", RegularPrice: "25"},
				{Framework: "qbcore", RegularPrice: "25"},
				{Framework: "qbox", RegularPrice: "30"},
			},
			Content: std(`A dealership with test drives, financing and a stock that employees refill.`, "Finance plans", "Showroom editor"),
			Excerpt: `<p>Dealership script. Pick your framework.</p>`,
		},
		{
			Title: "Tuning Menu", Slug: "tuning-menu", RegularPrice: "2.675", Visibility: "search",
			Categories: []string{"vehicles"}, Frameworks: []string{"qbcore"},
			Content: std(`Mechanic tuning menu with performance and cosmetic parts.`, "Part prices per job grade"),
			Excerpt: `<p>Found through search only.</p>`,
		},
		{
			Title: "Tokyo Drift Pack 東京", Slug: "tokyo-drift-pack-%e6%9d%b1%e4%ba%ac", RegularPrice: "19",
			Categories: []string{"vehicles", "maps-mlos"}, Frameworks: []string{"standalone"},
			Image:   "2026/10/tokyo-drift-pack.jpg",
			Content: tokyoDrift, Excerpt: tokyoDriftShort,
		},
		{
			Title: "Tebex Racing Pack", Slug: "tebex-racing-pack", Type: "external", RegularPrice: "15",
			URL:        "https://store.example.com/package/racing-pack",
			Categories: []string{"vehicles"}, Frameworks: []string{"esx", "qbcore"},
			Content: std(`Street races with bets and checkpoints, sold through our partner store.`, "Race editor"),
			Excerpt: `<p>Bought on our partner store.</p>`,
		},
		// --- Economy ----------------------------------------------------
		{
			Title: "Banking System", Slug: "banking-system", RegularPrice: "24.99", Featured: true,
			Categories: []string{"banking"}, Frameworks: []string{"esx", "qbcore", "qbox"},
			Content: polishBank, Excerpt: polishBankShort,
		},
		{
			Title: "ATM Robbery", Slug: "atm-robbery", RegularPrice: "12",
			Categories: []string{"banking", "economy"}, Frameworks: []string{"qbcore"},
			Content: std(`Hack or blow up ATMs; police get an alert and a camera still.`, "Hacking minigame"),
			Excerpt: `<p>Rob ATMs around the city.</p>`,
		},
		{
			Title: "Stock Market", Slug: "stock-market",
			Categories: []string{"economy"}, Frameworks: []string{"esx"},
			Content: std(`Shares of in-game companies whose price follows player activity. Price on request.`, "Charts"),
			Excerpt: `<p>No price set yet.</p>`,
		},
		{
			Title: "Crypto Exchange", Slug: "crypto-exchange", SalePrice: "8",
			Categories: []string{"economy"}, Frameworks: []string{"qbcore"},
			Content: std(`Mine and trade a fictional coin.`, "Mining rigs"),
			Excerpt: `<p>A sale price was typed without a regular price.</p>`,
		},
		{
			Title: "Drug Lab Empire", Slug: "drug-lab-empire", Type: "variable",
			Categories: []string{"economy"},
			Variations: []wpfixture.Variation{
				{Framework: "esx", RegularPrice: "18", StockStatus: "outofstock"},
				{Framework: "qbcore", RegularPrice: "18", StockStatus: "outofstock"},
			},
			Content: std(`Labs, suppliers and a distribution network. Every edition is sold out.`, "Lab upgrades"),
			Excerpt: `<p>Sold out in every edition.</p>`,
		},
		{
			Title: "Business Management", Slug: "business-management", RegularPrice: "30", SalePrice: "25",
			Categories: []string{"economy"}, Frameworks: []string{"esx", "qbcore", "qbox"},
			Content: std(`Own shops and bars, hire players, set prices and pay taxes.`, "Payroll", "Tax office"),
			Excerpt: `<p>A sale without an end date.</p>`,
		},
		{
			Title: "Billing System", Slug: "billing-system", RegularPrice: "8",
			Categories: []string{"economy"}, Frameworks: []string{"esx"},
			Content: std(`Invoices between players and societies, with reminders and late fees.`, "Society accounts"),
			Excerpt: `<p>Invoices &amp; fines.</p>`,
		},
		// --- Housing ----------------------------------------------------
		{
			Title: "Housing System", Slug: "housing-system", Type: "variable", Featured: true,
			Categories: []string{"housing"},
			Variations: []wpfixture.Variation{
				{Framework: "esx", RegularPrice: "35"},
				{Framework: "qbcore", RegularPrice: "35", SalePrice: "27.5", SaleFrom: activeFrom, SaleTo: activeTo},
				{Framework: "qbox", RegularPrice: "40"},
			},
			Content: turkishHousing, Excerpt: turkishHousingShort,
		},
		{
			Title: "Furniture Placer", Slug: "furniture-placer", RegularPrice: "9",
			Categories: []string{"housing"}, LocalFrameworks: []string{"esx", "qbcore"},
			Content: std(`Place, rotate and store furniture inside houses.`, "Snap to grid"),
			Excerpt: `<p>Its framework is a local attribute only.</p>`,
		},
		{
			Title: "Apartment Starter", Slug: "apartment-starter", RegularPrice: "4",
			Gallery:    []string{"2026/10/apartment-starter-lobby.jpg"},
			Categories: []string{"housing"}, Frameworks: []string{"qbcore"},
			Content: std(`Starter apartments for new characters.`, "Instanced interiors"),
			Excerpt: `<p>Gallery only, no featured image.</p>`,
		},
		{
			Title: "Motel Rooms", Slug: "motel-rooms", RegularPrice: "3", Stock: intp(5), Image: noImage,
			Categories: []string{"housing"}, Frameworks: []string{"esx"},
			Content: std(`Rent a motel room by the night.`, "Stash per room"),
			Excerpt: `<p>Managed stock: 5 licences left.</p>`,
		},
		// --- UI & HUD ---------------------------------------------------
		{
			Title: "Minimal HUD", Slug: "minimal-hud", RegularPrice: "7.5", Featured: true,
			Categories: []string{"ui-hud"}, Frameworks: []string{"standalone"},
			Content: blocks(
				para(`A clean HUD that stays out of the way. Here&#8217;s what you get:`),
				list("Health, armour &amp; hunger rings", "Speedometer with “smart” fuel gauge", "Cinematic mode"),
				`[youtube id="dQw4w9WgXcQ"]`,
			),
			Excerpt: `<p>Here&#8217;s the HUD players don&#8217;t notice — in a good way.</p>`,
		},
		{
			Title: "Notify System", Slug: "notify-system", RegularPrice: "2",
			Categories: []string{"ui-hud"}, Frameworks: []string{"esx", "qbcore", "qbox"},
			Content: std(`Stacked notifications with icons, sounds and progress bars.`, "Themes"),
			Excerpt: `<p>Pretty notifications.</p>`,
		},
		{
			Title: "Loading Screen", Slug: "loading-screen", RegularPrice: "4.5",
			Categories: []string{"ui-hud"},
			Content: blocks(
				heading(`Make the first minute count`),
				para(`Music, rotating tips and your server rules while assets stream in. Write tips in the config and show them with [[loading_tip]] anywhere in the HTML.`),
				`<!-- wp:shortcode -->`+"\n"+`[gallery ids="12,13,14"]`+"\n"+`<!-- /wp:shortcode -->`,
				para(`Works with any framework&nbsp;— it runs before one loads.`),
			),
			Excerpt: `<p>A loading screen with music, a slideshow, rotating tips, a progress bar that tracks real asset streaming, your server rules and links to Discord, Tebex and your website. Everything is configured in a single JSON file, so you can change texts, colours, fonts and pictures without touching HTML or JavaScript. Includes twelve ready-made themes, from neon cyberpunk to calm pastel, and a preview page for testing locally.</p>`,
		},
		{
			Title: "Phone Pro", Slug: "phone-pro", Type: "variable",
			Categories: []string{"ui-hud"},
			Variations: []wpfixture.Variation{
				{Framework: "esx", RegularPrice: "40"},
				{Framework: "qbcore", RegularPrice: "40"},
				{Framework: "qbox", RegularPrice: "45"},
				{Framework: "standalone", RegularPrice: "19", Disabled: true},
			},
			Content: std(`A smartphone with twenty apps: messages, bank, camera, social media and a marketplace.`, "Custom apps API", "Wallpapers"),
			Excerpt: `<p>The standalone edition is disabled.</p>`,
		},
		{
			Title: "Radial Menu", Slug: "radial-menu", RegularPrice: "5",
			Categories: []string{"ui-hud", "utilities"}, Frameworks: []string{"standalone", "qbox", "esx"},
			Content: std(`A radial menu for actions, emotes and job tools.`, "Nested menus"),
			Excerpt: `<p>Frameworks typed in an odd order.</p>`,
		},
		{
			Title: "Scoreboard", Slug: "scoreboard", RegularPrice: "3", Password: "northwind", Featured: true,
			Categories: []string{"ui-hud"}, Frameworks: []string{"esx", "qbcore"}, SKU: "NW-SECRET-SCOREBOARD", Tags: []string{"new"},
			Content: blocks(para(`SECRET beta build. Download link: https://files.example.com/SECRET-scoreboard.zip`)),
			Excerpt: `<p>SECRET: for patrons only.</p>`,
		},
		// --- Maps & MLOs ------------------------------------------------
		{
			Title: "Mission Row PD MLO", Slug: "mission-row-pd-mlo", RegularPrice: "29",
			Gallery:    []string{"2026/10/mission-row-1.jpg", "2026/10/mission-row-2.jpg", "2026/10/mission-row-3.jpg"},
			Categories: []string{"maps-mlos", "police"},
			Content:    std(`A full interior for Mission Row police station: cells, armory, briefing room.`, "Optimised collisions"),
			Excerpt:    `<p>An interior: no framework.</p>`,
		},
		{
			Title: "Pillbox Hospital MLO", Slug: "pillbox-hospital-mlo", RegularPrice: "27",
			Categories: []string{"maps-mlos", "ems"},
			Content:    std(`Pillbox Hill Medical Center with operating rooms and a helipad.`, "Working elevators"),
			Excerpt:    `<p>A hospital interior.</p>`,
		},
		{
			Title: "Casino MLO", Slug: "casino-mlo", RegularPrice: "45", Password: "vip",
			Categories: []string{"maps-mlos"},
			Content:    blocks(para(`SECRET pre-release of the casino interior.`), list("SECRET vault layout")),
			Excerpt:    `<p>SECRET preview for VIP customers.</p>`,
		},
		{
			Title: "Legion Square MLO", Slug: "legion-square-mlo", RegularPrice: "19",
			Stock: intp(0), StockStatus: "onbackorder",
			Categories: []string{"maps-mlos"},
			Content:    std(`A redesigned Legion Square with a stage and market stalls.`, "Event stage"),
			Excerpt:    `<p>Stock 0 with backorders allowed.</p>`,
		},
		// --- Utilities --------------------------------------------------
		{
			Title: "Inventory System", Slug: "inventory-system", Type: "variable",
			Categories: []string{"utilities"},
			Variations: []wpfixture.Variation{
				{Framework: "esx", RegularPrice: "30"},
				{Framework: "qbcore", RegularPrice: "35"},
				{Framework: "qbox", RegularPrice: "35"},
				{Framework: "standalone", RegularPrice: "40", SalePrice: "20", SaleFrom: futureFrom, SaleTo: futureTo},
			},
			Content: std(`Weight-based inventory with hotbar, crafting and shops.`, "Item metadata", "Drag &amp; drop"),
			Excerpt: `<p>One edition per framework.</p>`,
		},
		{
			Title: "Target System", Slug: "target-system", RegularPrice: "6",
			Categories: []string{"utilities"}, Frameworks: []string{"esx", "qbcore", "qbox", "standalone"},
			Content: std(`Third-eye interaction with entities, zones and bones.`, "Debug mode"),
			Excerpt: `<p>Interaction targeting.</p>`,
		},
		{
			Title: "Discord Logs", Slug: "discord-logs", RegularPrice: "3.5",
			Frameworks: []string{"standalone"},
			Content:    std(`Send kills, chats, joins and admin actions to Discord webhooks.`, "Per-channel filters"),
			Excerpt:    `<p>No category chosen.</p>`,
		},
		{
			Title: "Weather Sync", Slug: "weather-sync", RegularPrice: "2", Image: noImage,
			Content: std(`Synchronised weather and time with seasons.`, "Blackout mode"),
			Excerpt: `<p>No category, no framework, no image.</p>`,
		},
		{
			Title: "Emergency Services Bundle", Slug: "emergency-services-bundle", Type: "grouped", Featured: true,
			Categories: []string{"emergency-services"},
			Content:    std(`Police MDT, EMS Job and Fire Department Job together.`, "Buy the pieces you need"),
			Excerpt:    `<p>A grouped product.</p>`,
		},
		// --- Anticheat: nothing a visitor can browse ----------------------
		{
			Title: "Anticheat Pro", Slug: "anticheat-pro", RegularPrice: "50", Visibility: "hidden", Featured: true,
			Categories: []string{"anticheat"}, Frameworks: []string{"standalone"},
			Content: std(`Server-side detection of injectors and event spam.`, "Ban sync"),
			Excerpt: `<p>Hidden: reachable only by its URL.</p>`,
		},
		{
			Title: "Anticheat Lite", Slug: "anticheat-lite", RegularPrice: "20", Visibility: "search",
			Categories: []string{"anticheat"}, Frameworks: []string{"standalone"},
			Content: std(`The basic detections of Anticheat Pro.`, "Weapon blacklist"),
			Excerpt: `<p>Search results only.</p>`,
		},
		// --- Not published ----------------------------------------------
		{
			Title: "Anticheat Ultimate DRAFT-ONLY", Status: "draft", RegularPrice: "99",
			Categories: []string{"anticheat"}, Frameworks: []string{"standalone"}, Image: noImage,
			Content: std(`DRAFT-ONLY text that must never be served.`), Excerpt: `<p>DRAFT-ONLY</p>`,
		},
		{
			Title: "Heist Pack DRAFT-ONLY", Slug: "heist-pack", Status: "draft", RegularPrice: "28",
			Categories: []string{"police", "economy"}, Frameworks: []string{"qbcore"},
			Content: std(`DRAFT-ONLY bank heists.`), Excerpt: `<p>DRAFT-ONLY</p>`,
		},
		{
			Title: "Gang Wars PENDING-ONLY", Slug: "gang-wars", Status: "pending", RegularPrice: "15",
			Categories: []string{"jobs"}, Frameworks: []string{"esx"},
			Content: std(`PENDING-ONLY turf wars.`), Excerpt: `<p>PENDING-ONLY</p>`,
		},
		{
			Title: "Dev Toolkit PRIVATE-ONLY", Slug: "dev-toolkit", Status: "private", RegularPrice: "5",
			Categories: []string{"utilities"}, Frameworks: []string{"standalone"},
			Content: std(`PRIVATE-ONLY internal tools.`), Excerpt: `<p>PRIVATE-ONLY</p>`,
		},
		{
			Title: "Winter Update FUTURE-ONLY", Slug: "winter-update", Status: "future", RegularPrice: "12",
			Date:       time.Date(2027, 1, 15, 9, 0, 0, 0, time.UTC),
			Categories: []string{"ui-hud"}, Frameworks: []string{"qbox"},
			Content: std(`FUTURE-ONLY snow and ice.`), Excerpt: `<p>FUTURE-ONLY</p>`,
		},
		{
			Title: "Old Police Job TRASH-ONLY", Slug: "old-police-job", Status: "trash", RegularPrice: "1",
			Categories: []string{"police"}, Frameworks: []string{"esx"},
			Content: std(`TRASH-ONLY legacy script.`), Excerpt: `<p>TRASH-ONLY</p>`,
		},
		// --- More ordinary products, for paging ---------------------------
		simple("Emote Menu", "emote-menu", "4", "utilities", "standalone"),
		simple("Clothing Store", "clothing-store", "13", "ui-hud", "esx", "qbcore"),
		simple("Multicharacter", "multicharacter", "11", "utilities", "qbcore", "qbox"),
		simple("Spawn Selector", "spawn-selector", "3", "ui-hud", "qbcore"),
		simple("Mechanic Job", "mechanic-job", "12", "civilian-jobs", "esx", "qbcore", "qbox"),
		simple("Lottery", "lottery", "1.5", "economy", "esx"),
		simple("Car Wash", "car-wash", "2.5", "vehicles", "standalone"),
		simple("Weed Farm MLO", "weed-farm-mlo", "21", "maps-mlos"),
		simple("Bennys Garage MLO", "bennys-garage-mlo", "24", "maps-mlos"),
	}
}

// simple is an ordinary published product: one category, a price, some
// frameworks and a generated description.
func simple(title, slug, price, cat string, frameworks ...string) wpfixture.Product {
	return wpfixture.Product{
		Title: title, Slug: slug, RegularPrice: price,
		Categories: []string{cat}, Frameworks: frameworks,
		Content: std(title+` for your FiveM server, configurable and optimised (0.00&nbsp;ms idle).`,
			"Easy config", "Full source of the UI", "Free updates"),
		Excerpt: `<p>` + title + ` — ready in five minutes.</p>`,
	}
}
