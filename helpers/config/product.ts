/** Who and what a certification run certifies (PRODUCT.json). */
export interface Product {
  vendor: string;
  product: string;
  version: string;
  contact?: string;
}
