package demoshop

import "strings"

func intp(n int) *int           { return &n }
func strp(s string) *string     { return &s }
func blocks(b ...string) string { return strings.Join(b, "\n\n") }

func para(html string) string {
	return "<!-- wp:paragraph -->\n<p>" + html + "</p>\n<!-- /wp:paragraph -->"
}

func heading(html string) string {
	return "<!-- wp:heading -->\n<h2 class=\"wp-block-heading\">" + html + "</h2>\n<!-- /wp:heading -->"
}

func list(items ...string) string {
	var b strings.Builder
	b.WriteString("<!-- wp:list -->\n<ul class=\"wp-block-list\">")
	for _, it := range items {
		b.WriteString("<!-- wp:list-item -->\n<li>" + it + "</li>\n<!-- /wp:list-item -->\n\n")
	}
	b.WriteString("</ul>\n<!-- /wp:list -->")
	return b.String()
}

// std is the usual description: an introduction, then a feature list.
func std(intro string, features ...string) string {
	if len(features) == 0 {
		return para(intro)
	}
	return blocks(para(intro), heading("Features"), list(features...))
}

// Long multibyte texts.
var (
	germanMDT = blocks(
		para(`Das Police MDT ist das digitale Herzstück jeder Polizeiwache auf deinem Server. Beamte können Personen und Fahrzeuge abfragen, Haftbefehle ausstellen, Berichte schreiben und Bußgelder verhängen – alles in einer übersichtlichen Oberfläche, die sich nahtlos in ESX, QBCore und Qbox einfügt.`),
		para(`Die Datenbankabfragen sind für große Server mit über 200 Spielern optimiert, sodass selbst zur Stoßzeit keine Verzögerungen entstehen. Über die Konfigurationsdatei lassen sich Dienstgrade, Abteilungen und Berechtigungen frei anpassen; Straßenverkehrsordnung, Strafgesetzbuch und Bußgeldkatalog sind vollständig übersetzbar.`),
		heading(`Funktionen im Überblick`),
		list(`Personen‑ &amp; Fahrzeugabfrage mit Fotos`, `Haftbefehle, Fahndungen und „BOLO“-Liste`, `Berichte mit Vorlagen für Unfälle, Festnahmen und Durchsuchungen`, `Anbindung an Dispatch und Kennzeichenleser ohne zusätzlichen Code`),
		`[caption id="attachment_7" align="alignnone" width="1200"]Die Aktenansicht im Streifenwagen[/caption]`,
		para(`Größter Vorteil: regelmäßige Updates, deutschsprachiger Support im Discord und eine ausführliche Dokumentation&nbsp;– kostenlos für alle Käufer.`),
	)

	frenchCafe = blocks(
		para(`Ouvrez votre propre café au cœur de Los Santos&nbsp;! Les joueurs préparent des expressos, des cappuccinos et des pâtisseries à l&#8217;aide d&#8217;un système de recettes entièrement configurable. Chaque commande passe par une caisse enregistreuse synchronisée, et les bénéfices sont versés directement sur le compte de l’entreprise.`),
		para(`Le gérant peut embaucher des serveurs, fixer les salaires et suivre les ventes de la journée depuis un tableau de bord élégant. Les animations, les accessoires et les sons ont été soigneusement choisis pour une immersion maximale&nbsp;: vapeur de la machine à café, tasses en porcelaine et reçus imprimés.`),
		list(`Recettes «&nbsp;maison&nbsp;» illimitées`, `Menu imprimé avec les prix en €`, `Traductions française, anglaise et allemande`),
		para(`Compatible avec QBCore, testé sur des serveurs de plus de 150&nbsp;joueurs. Où que vous soyez, le café est prêt.`),
	)
	frenchCafeShort = `<p>Ouvrez votre propre café au cœur de Los Santos&nbsp;! Expressos, cappuccinos et pâtisseries préparés grâce à un système de recettes configurable, une caisse enregistreuse synchronisée, des serveurs embauchés par le gérant et un tableau de bord élégant pour suivre les ventes de la journée. Animations, accessoires et sons soigneusement choisis pour une immersion maximale. Testé sur des serveurs de plus de 150 joueurs.</p>`

	polishBank = blocks(
		para(`Kompletny system bankowy dla Twojego serwera: konta osobiste i firmowe, przelewy między graczami, karty płatnicze z kodem PIN oraz historia transakcji z filtrowaniem według daty. Bankomaty rozstawione są w całym mieście, a oddziały banku obsługują kredyty, lokaty i wspólne konta dla gangów oraz firm.`),
		para(`Interfejs został zaprojektowany z myślą o czytelności — duże czcionki, ciemny motyw i pełne wsparcie dla polskich znaków: ąęćłńóśźż ĄĘĆŁŃÓŚŹŻ. Wszystkie operacje są zabezpieczone po stronie serwera, więc żadne wstrzykiwanie zdarzeń nie pozwoli graczom wygenerować pieniędzy z powietrza.`),
		heading(`Co zawiera pakiet?`),
		list(`Konta firmowe z uprawnieniami`, `Kredyty z harmonogramem spłat`, `Gotowe tłumaczenia: polskie, angielskie i niemieckie`),
	)
	polishBankShort = `<p>Kompletny system bankowy: konta osobiste i firmowe, przelewy między graczami, karty płatnicze z kodem PIN, historia transakcji, bankomaty w całym mieście, kredyty, lokaty i wspólne konta dla gangów oraz firm. Czytelny interfejs z ciemnym motywem i pełnym wsparciem polskich znaków (ąęćłńóśźż). Wszystkie operacje zabezpieczone po stronie serwera. Współpracuje z ESX, QBCore i Qbox.</p>`

	turkishHousing = blocks(
		para(`Sunucunuz için eksiksiz bir konut sistemi: oyuncular ev satın alabilir, kiralayabilir ve arkadaşlarıyla paylaşabilir. Emlakçı mesleği sayesinde ilanlar oluşturulur, fiyatlar pazarlık edilir ve satış sözleşmeleri imzalanır.`),
		para(`İç mekânlar dinamik olarak yüklenir; böylece şehirdeki yüzlerce ev sunucu performansını düşürmeden kullanılabilir. Mobilya yerleştirme aracı, depolama alanı, kıyafet dolabı ve güvenlik kameraları dahildir. Çilingir, hırsızlık ve polis baskını gibi özellikler de yapılandırma dosyasından açılıp kapatılabilir.`),
		list(`Emlakçı mesleği`, `Anahtar paylaşımı`, `Türkçe, İngilizce ve Almanca dil dosyaları`),
		para(`Özel karakterler (ç, ğ, ı, İ, ö, ş, ü) sorunsuz görüntülenir.`),
	)
	turkishHousingShort = `<p>Oyuncular ev satın alır, kiralar ve paylaşır; emlakçılar ilan oluşturur. İç mekânlar dinamik yüklenir.</p>`

	tokyoDrift = blocks(
		para(`🚗💨 東京の夜を駆け抜けろ！このパックには、首都高速をイメージした峠コース、ドリフト採点システム、そしてリーダーボードが含まれています。🏁 スコアはリアルタイムで計算され、角度・速度・ラインの正確さによってポイントが決まります。`),
		para(`东京漂移包还包括十二辆经过调校的改装车，每辆车都有独特的操控手感。🇯🇵 夜景、ネオン、雨の路面——すべてが最高の没入感のために作られています。한국어 번역도 포함되어 있습니다. 👨‍👩‍👧 Family-friendly crew mode, 👍🏽 rated by 500+ drivers.`),
		list(`峠コース ×3 🏔️`, `ドリフト採点 🎯`, `12台の改装車 🚙`),
		para(`Made with ❤️ in Ōsaka &amp; Zürich.`),
	)
	tokyoDriftShort = `<p>🚗💨 東京の夜を駆け抜けろ！首都高速をイメージした峠コース、ドリフト採点システム、リーダーボード付き。🏁 スコアはリアルタイムで計算され、角度・速度・ラインの正確さによってポイントが決まります。东京漂移包还包括十二辆经过调校的改装车，每辆车都有独特的操控手感。🇯🇵 夜景、ネオン、雨の路面——すべてが最高の没入感のために作られています。한국어 번역도 포함되어 있습니다. 👨‍👩‍👧 crew mode, 👍🏽 rated by 500+ drivers, made with ❤️ in Ōsaka &amp; Zürich, tested on servers across Japan, Korea, China and Europe for smooth drifting every night.</p>`
)
