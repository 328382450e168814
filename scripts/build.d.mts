// Types of scripts/build.mjs (plain JavaScript: it runs before anything is compiled).
export declare const root: string;
export declare const distDir: string;
export declare function isStale(): boolean;
export declare function build(): Promise<void>;
