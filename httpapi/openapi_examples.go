package httpapi

import "catalogd/api"

// docExamples are the document's example bodies: the demo shop's
// (deploy/seed) real answers, on the document's site, typed as the
// handlers encode them so that a field renamed or added in api cannot
// leave them behind; the linters (make lint-openapi) check them against
// the schemas. They are keyed by the schema of the 200 body, and by
// operation and status for the errors of the two product operations.
func docExamples(ns, site, base string) map[string]any {
	str := func(s string) *string { return &s }
	api1 := site + base
	mdt := api.Product{Slug: "police-mdt", Name: "Police MDT", URL: site + "/product/police-mdt/", SKU: str("NW-MDT"),
		Price: str("20.00"), RegularPrice: str("20.00"), Currency: "EUR", InStock: true, Purchasable: true,
		Categories: []string{"police"}, Frameworks: []string{"esx", "qbcore", "qbox"},
		Image:   str(site + "/wp-content/uploads/2026/10/police-mdt.jpg"),
		Summary: "Das digitale Einsatzsystem für deine Polizei: Akten, Haftbefehle, Bußgelder & Berichte."}
	k9 := api.Product{Slug: "k9-unit", Name: "K9 Unit", URL: site + "/product/k9-unit/",
		Price: str("4.00"), RegularPrice: str("4.00"), Currency: "EUR", InStock: true, Purchasable: true,
		Categories: []string{"police"}, Frameworks: []string{"qbcore", "qbox"},
		Image: str(site + "/wp-content/uploads/2026/10/k9-unit.jpg"), Summary: "A police dog with search & attack commands."}
	dispatch := api.Product{Slug: "dispatch-system", Name: "Dispatch System", URL: site + "/product/dispatch-system/",
		SKU: str("NW-DISPATCH"), Price: str("10.00"), RegularPrice: str("14.00"), OnSale: true, Currency: "EUR", InStock: true,
		Purchasable: true, Categories: []string{"ems", "police"}, Tags: &[]string{"escrow-free", "roleplay"},
		Frameworks: []string{"qbcore", "qbox"},
		Attributes: &[]api.Attribute{{Name: "pa_framework", Label: "Framework",
			Values: []api.AttributeValue{{Slug: "qbcore", Name: "QBCore"}, {Slug: "qbox", Name: "Qbox"}}}},
		Image:   str(site + "/wp-content/uploads/2026/10/dispatch-system.jpg"),
		Summary: "One dispatch for all emergency services — on sale.",
		Description: str("Shared dispatch for police and EMS: calls, blips, units and priorities on one screen.\n\n" +
			"Features\n\nPanic button\nCall history per unit\nSound alerts")}
	return map[string]any{
		"CatalogIndex": api.Index{Name: "Northwind Scripts", Description: "Premium FiveM scripts for ESX, QBCore and Qbox servers",
			Currency: "EUR", ProductCount: 58, PublishedProductCount: 61, CatalogVisibleProductCount: 58, CategoryCount: 15,
			OpenAPI: site + "/openapi.json", LLMsTxt: site + "/llms.txt", Sitemap: site + "/wp-sitemap.xml",
			Endpoints: api.Endpoints{Catalog: api1 + "/catalog", Categories: api1 + "/catalog/categories",
				Products: api1 + "/catalog/products", Product: api1 + "/catalog/products/{slug}"}},
		"CategoryList": api.CategoryList{Categories: []api.Category{
			{Slug: "banking", Name: "Banking", Count: 2, URL: site + "/product-category/economy/banking/", Parent: str("economy")},
			{Slug: "emergency-services", Name: "Emergency Services", Count: 13,
				URL: site + "/product-category/jobs/emergency-services/", Parent: str("jobs")},
		}},
		"ProductList": api.ProductList{Products: []api.Product{mdt, k9}, Page: 1, PerPage: 2, Total: 18, TotalPages: 9},
		"Product":     dispatch,
		"listProducts 400": api.Error{Code: ns + "_invalid_per_page", Message: "per_page must be a plain whole number from 1 to 50.",
			Data: api.ErrorData{Status: 400,
				Hint: "Send per_page as a plain whole number from 1 to 50 (default 20); larger pages are rejected, not clamped.",
				Params: map[string]string{"framework": "framework must be one of esx, qbcore, qbox, standalone.",
					"per_page": "per_page must be a plain whole number from 1 to 50."}}},
		"getProduct 404": api.Error{Code: ns + "_product_not_found", Message: `No published product has the slug "no-such-thing".`,
			Data: api.ErrorData{Status: 404, Hint: "List the products to find the English slug: " + api1 + "/catalog/products"}},
	}
}
